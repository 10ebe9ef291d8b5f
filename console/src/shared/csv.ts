/**
 * What a spreadsheet may run as a formula (OWASP CSV injection): `=`, `+`, `-`, `@`, a tab, a CR,
 * `;` or `|` first, or after leading spaces. The gateway's own export uses the same rule
 * (src/exports/payouts.csv.ts); console/test/csv.test.tsx checks both agree.
 */
const FORMULA_START = /^ *[=+\-@\t\r;|]/;

/** One CSV cell: a formula-like value prefixed with ' (shown as text, never run) and quoted; one with a separator, quote or line break quoted. */
function cell(value: string): string {
  const neutral = FORMULA_START.test(value);
  const text = neutral ? `'${value}` : value;
  return neutral || /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** RFC 4180 rows: quoted cells may hold commas, quotes ("") and line breaks; blank lines are skipped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let value = '';
  let quoted = false;
  const endRow = () => {
    row.push(value);
    if (row.length > 1 || row[0].trim() !== '') rows.push(row);
    row = [];
    value = '';
  };
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        value += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else value += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(value);
      value = '';
    } else if (char === '\n') endRow();
    else if (char !== '\r') value += char;
  }
  if (value !== '' || row.length > 0) endRow();
  return rows;
}

/** Saves text as a file from memory (no link can carry the token a server download would need). */
export function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
