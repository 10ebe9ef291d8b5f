/** Decimal amounts as text: parsed and compared without ever passing through a float. */

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/** Beyond 15 significant digits a JSON number no longer round-trips exactly. */
const MAX_SIGNIFICANT_DIGITS = 15;

/** `"0150.50"` → `"150.5"`; undefined when the text is not a plain non-negative decimal. */
export function canonicalDecimal(raw: string): string | undefined {
  const match = DECIMAL.exec(raw.trim());
  if (!match) return undefined;
  const integer = match[1].replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return fraction ? `${integer}.${fraction}` : integer;
}

/** Like canonicalDecimal, but a leading minus is kept (`"-0.50"` → `"-0.5"`, `"-0"` → `"0"`): balances can be overdrawn. */
export function canonicalSignedDecimal(raw: string): string | undefined {
  const text = raw.trim();
  const negative = text.startsWith('-');
  const magnitude = canonicalDecimal(negative ? text.slice(1) : text);
  if (magnitude === undefined) return undefined;
  return negative && isPositive(magnitude) ? `-${magnitude}` : magnitude;
}

export function decimalPlaces(canonical: string): number {
  const dot = canonical.indexOf('.');
  return dot === -1 ? 0 : canonical.length - dot - 1;
}

export function isPositive(canonical: string): boolean {
  return /[1-9]/.test(canonical);
}

export function fitsJsonNumber(canonical: string): boolean {
  return canonical.replace('.', '').replace(/^0+/, '').length <= MAX_SIGNIFICANT_DIGITS;
}
