import { Disbursement, isFinal } from '../disbursements/disbursement.model';
import { HistoryFilter, HistoryPosition, HistoryQuery } from '../disbursements/disbursement.ports';
import { toMinor } from '../disbursements/payout.controls';

/** The columns of a payout's row besides its keys and revision, as both engines store them. */
export interface PayoutColumns {
  written_at: number;
  status: string;
  channel: string;
  currency: string;
  amount_minor: number;
  final: number;
  next_check_at: number | null;
  record: string;
}

export function payoutColumns(record: Disbursement, writtenAt: number): PayoutColumns {
  return {
    written_at: writtenAt,
    status: record.status,
    channel: record.channel,
    currency: record.currency,
    amount_minor: toMinor(record.amount),
    final: isFinal(record.status) ? 1 : 0,
    next_check_at: record.nextCheckAt === undefined ? null : Date.parse(record.nextCheckAt),
    record: JSON.stringify(record),
  };
}

/** Where a new record sits in its merchant's history: when it was first stored. */
export const createdAtOf = (record: Disbursement): number => Date.parse(record.updatedAt);

/** A SQL condition and its values, with placeholders written by `param` (`?` or `$n`). */
export interface Condition {
  sql: string;
  values: unknown[];
}

/**
 * The history filter (and, for a page, the cursor) as SQL on `payouts`. A prefix compares the
 * text's start exactly (LIKE would fold case in SQLite and treat `%` and `_` as wildcards).
 */
export function historyCondition(
  merchantId: string,
  filter: HistoryFilter,
  after: HistoryPosition | undefined,
  param: (index: number) => string,
): Condition {
  const values: unknown[] = [merchantId];
  const next = (value: unknown) => {
    values.push(value);
    return param(values.length);
  };
  const parts = [`merchant_id = ${param(1)}`];
  if (after) parts.push(`(created_at, reference_id) < (${next(after.at)}, ${next(after.referenceId)})`);
  if (filter.createdFrom !== undefined) parts.push(`created_at >= ${next(filter.createdFrom)}`);
  if (filter.createdTo !== undefined) parts.push(`created_at <= ${next(filter.createdTo)}`);
  if (filter.statuses && filter.statuses.length > 0)
    parts.push(`status IN (${filter.statuses.map((s) => next(s)).join(', ')})`);
  if (filter.channel) parts.push(`channel = ${next(filter.channel)}`);
  if (filter.referenceIdPrefix) {
    const prefix = filter.referenceIdPrefix;
    parts.push(`substr(reference_id, 1, ${next(prefix.length)}) = ${next(prefix)}`);
  }
  return { sql: parts.join(' AND '), values };
}

/** A page's SELECT: one more row than asked, to know whether more follow. */
export function historyPageSql(where: Condition, query: HistoryQuery, param: (index: number) => string): Condition {
  const limit = param(where.values.length + 1);
  return {
    sql: `SELECT created_at, reference_id, record FROM payouts WHERE ${where.sql} ORDER BY created_at DESC, reference_id DESC LIMIT ${limit}`,
    values: [...where.values, query.limit + 1],
  };
}
