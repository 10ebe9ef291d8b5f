import { badInput } from './disbursement.errors';
import { DisbursementStatus } from './disbursement.model';
import { Merchant, RecordsReader } from './disbursement.ports';
import { moneyText } from './money.format';

export interface StatementWindow {
  from: Date;
  to: Date;
}

export interface PayoutStatementLine {
  currency: string;
  status: DisbursementStatus;
  count: number;
  /** The exact sum, two decimal places. */
  amount: string;
}

/** A window no longer than this is summed: a statement is a month or a quarter, not a decade. */
const MAX_WINDOW_DAYS = 400;

/** The window's bounds checked: `from` before `to`, both real times, at most MAX_WINDOW_DAYS apart. */
export function checkedWindow(window: StatementWindow): { from: number; to: number } {
  const from = window.from.getTime();
  const to = window.to.getTime();
  if (Number.isNaN(from) || Number.isNaN(to)) throw badInput('from and to must be times', ['from', 'to']);
  if (from >= to) throw badInput('from must be before to', ['from', 'to']);
  if (to - from > MAX_WINDOW_DAYS * 86_400_000)
    throw badInput(`a window spans at most ${MAX_WINDOW_DAYS} days`, ['from', 'to']);
  return { from, to };
}

/**
 * The merchant's payouts created in [from, to) (when the gateway first recorded each), counted and
 * summed per currency and status, the sums exact (minor units summed by the database).
 */
export async function payoutStatement(
  records: RecordsReader,
  merchant: Merchant,
  window: StatementWindow,
): Promise<PayoutStatementLine[]> {
  const { from, to } = checkedWindow(window);
  const lines = await records.statement(merchant.id, from, to);
  return lines.map((line) => ({ ...line, amount: moneyText(line.amountMinor) }));
}
