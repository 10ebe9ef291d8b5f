/**
 * One CSV cell: quoted when it holds a separator, a quote or a line break; a leading =, +, - or @
 * is prefixed with ' so that a spreadsheet never runs a cell as a formula.
 */
function cell(value: string): string {
  const safe = /^[=+\-@]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
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
