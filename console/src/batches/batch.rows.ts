import { parseCsv } from '../shared/csv';

/** The API's largest batch. */
export const MAX_ROWS = 100;

export interface BatchRow {
  /** The file's line number, as the person sees it in their spreadsheet. */
  line: number;
  /** A beneficiary id (ben_…) or a mobile money number. */
  recipient: string;
  kind: 'beneficiary' | 'mobile';
  amount: string;
  currency: string;
  reference: string;
  narration?: string;
  /** Why it cannot be sent; empty: it can. */
  problems: string[];
}

const MOBILE = /^260\d{9}$/;
const AMOUNT = /^\d+(\.\d{1,2})?$/;
const REFERENCE = /^[\x21-\x7e][\x20-\x7e]{0,63}$/;
/** The columns in order, as a first line may name them. */
const COLUMNS = ['recipient', 'amount', 'reference', 'currency', 'narration'];

/** A first line naming the required columns and any optional ones, in order (any case; empty cells after): data never does. */
function isHeader(cells: readonly string[] | undefined): boolean {
  const names = (cells ?? []).map((cell) => cell.trim().toLowerCase());
  while (names.at(-1) === '') names.pop();
  return names.length >= 3 && names.length <= COLUMNS.length && names.every((name, index) => name === COLUMNS[index]);
}

/**
 * A batch file, checked in the browser before anything is asked of the API: columns recipient
 * (a beneficiary id, or a mobile money number), amount, reference, then optional currency
 * (default ZMW) and narration; a first line naming the columns is skipped. Bank accounts take
 * more fields than a line holds: a bank payee is paid as a saved beneficiary.
 */
export function checkRows(text: string): { rows: BatchRow[]; problem?: string } {
  const lines = parseCsv(text);
  const header = isHeader(lines[0]);
  const body = header ? lines.slice(1) : lines;
  if (body.length === 0) return { rows: [], problem: 'The file has no payouts.' };
  if (body.length > MAX_ROWS)
    return { rows: [], problem: `The file has ${body.length} payouts; at most ${MAX_ROWS} go in one batch.` };
  const seen = new Map<string, number>();
  const rows = body.map((cells, index): BatchRow => {
    const [recipient = '', amount = '', reference = '', currency = '', narration = ''] = cells.map((c) => c.trim());
    const line = index + (header ? 2 : 1);
    const kind = recipient.startsWith('ben_') ? 'beneficiary' : 'mobile';
    const problems: string[] = [];
    if (!recipient) problems.push('no recipient');
    else if (kind === 'mobile' && !MOBILE.test(recipient))
      problems.push('recipient is neither a beneficiary id (ben_…) nor a mobile money number (260 and 9 digits)');
    if (!AMOUNT.test(amount) || Number(amount) <= 0) problems.push('amount must be positive, with at most 2 decimals');
    if (!REFERENCE.test(reference)) problems.push('reference must be 1 to 64 printable characters');
    else if (seen.has(reference)) problems.push(`reference repeats line ${seen.get(reference)}`);
    else seen.set(reference, line);
    if (currency && !/^[A-Z]{3}$/.test(currency)) problems.push('currency must be three capital letters');
    return {
      line,
      recipient,
      kind,
      amount,
      currency: currency || 'ZMW',
      reference,
      narration: narration || undefined,
      problems,
    };
  });
  return { rows };
}
