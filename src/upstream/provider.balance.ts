import { canonicalSignedDecimal } from '../disbursements/decimal.parse';
import { ProviderBalance } from '../disbursements/disbursement.model';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON number is written back in its shortest exact form; beyond 15 significant digits the provider's own text is already lost. */
function amountOf(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? canonicalSignedDecimal(String(value)) : undefined;
  if (typeof value === 'string') return canonicalSignedDecimal(value);
  return undefined;
}

/**
 * Reads a balance answer tolerantly: `{"success": true, "data": {"balance": 1234.5}}` as the
 * provider's mock serves it, or a flat `{"balance": "1234.50"}`; the amount as a number or a
 * string; a currency when one is given. Undefined when there is no readable amount, or the
 * answer says `success: false`.
 */
export function parseProviderBalance(body: unknown): ProviderBalance | undefined {
  if (!isObject(body) || body.success === false) return undefined;
  const data = isObject(body.data) ? body.data : body;
  const amount = amountOf(data.balance ?? data.availableBalance ?? data.available_balance);
  if (amount === undefined) return undefined;
  const currency = data.currency ?? body.currency;
  return typeof currency === 'string' && /^[A-Z]{3}$/.test(currency.trim())
    ? { amount, currency: currency.trim() }
    : { amount };
}
