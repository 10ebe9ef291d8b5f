import { HistoryEntry } from '../disbursements/disbursement.ports';
import { moneyText } from '../disbursements/money.format';
import { toMinor } from '../disbursements/payout.controls';

/** The export's columns, in order; the header row names them. */
export const PAYOUT_COLUMNS = [
  'referenceId',
  'createdAt',
  'channel',
  'paymentType',
  'amount',
  'currency',
  'accountNumber',
  'status',
  'identifier',
  'message',
  'requestedBy',
  'approvedBy',
  'updatedAt',
  'sendAt',
] as const;

/**
 * What a spreadsheet may read as a formula (OWASP CSV injection): `=`, `+`, `-`, `@`, a tab, a CR,
 * `;` or `|` first, or after leading spaces, which spreadsheets skip.
 */
const FORMULA_START = /^ *[=+\-@\t\r;|]/;
/** What RFC 4180 says must be quoted: a comma, a double quote, a CR or a LF anywhere. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One cell: a formula-like value prefixed with `'` (shown as text, never run) and quoted; a value
 * holding a comma, quote or line break quoted, its quotes doubled (RFC 4180).
 */
export function csvCell(value: string | undefined): string {
  if (value === undefined || value === '') return '';
  const neutral = FORMULA_START.test(value);
  const text = neutral ? `'${value}` : value;
  return neutral || NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record of cells, ended by CRLF (RFC 4180). */
export function csvLine(cells: readonly (string | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export const PAYOUT_HEADER = csvLine(PAYOUT_COLUMNS);

/**
 * A payout as an export row: `createdAt` is when the gateway first recorded it (what the window
 * selects on), the amount has two decimals, `approvedBy` is set only once a second person approved it,
 * `sendAt` only for a scheduled payout.
 */
export function payoutLine({ at, record }: HistoryEntry): string {
  const approval = record.approval;
  const row: Record<(typeof PAYOUT_COLUMNS)[number], string | undefined> = {
    referenceId: record.referenceId,
    createdAt: new Date(at).toISOString(),
    channel: record.channel,
    paymentType: record.paymentType,
    amount: moneyText(toMinor(record.amount)),
    currency: record.currency,
    accountNumber: record.accountNumber,
    status: record.status,
    identifier: record.identifier,
    message: record.message,
    requestedBy: approval?.requestedBy ?? record.createdBy,
    approvedBy: approval?.decision === 'APPROVED' ? approval.decidedBy : undefined,
    updatedAt: record.updatedAt,
    sendAt: record.sendAt,
  };
  return csvLine(PAYOUT_COLUMNS.map((column) => row[column]));
}
