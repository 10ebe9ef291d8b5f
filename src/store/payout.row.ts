import { AuditAction, AuditEntry } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement, DisbursementStatus, isFinal } from '../disbursements/disbursement.model';
import {
  AuditQuery,
  HistoryEntry,
  HistoryFilter,
  HistoryPosition,
  HistoryQuery,
} from '../disbursements/disbursement.ports';
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

/** A history read's row; PostgreSQL answers a bigint as a string. */
export interface HistoryRow {
  created_at: number | string;
  reference_id: string;
  record: string;
}

export function historyEntryOf(row: HistoryRow): HistoryEntry {
  return { at: Number(row.created_at), referenceId: row.reference_id, record: JSON.parse(row.record) as Disbursement };
}

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

/** An audit_log row as both engines return it (PostgreSQL gives BIGINT as text). */
export interface AuditRow {
  sequence: number | string;
  at: string;
  actor: string | null;
  action: string;
  reference_id: string | null;
  status: string | null;
  amount: string | null;
  currency: string | null;
  detail: string | null;
  hash: string;
  previous_hash: string;
  /** Absent when read from a database not yet migrated to version 5. */
  mac?: string | null;
}

/** An audit_checkpoints row as both engines return it. */
export interface CheckpointRow {
  merchant_id: string;
  sequence: number | string;
  hash: string;
  at: string;
  signature: string;
}

export function checkpointOf(row: CheckpointRow): AuditCheckpoint {
  return {
    merchantId: row.merchant_id,
    sequence: Number(row.sequence),
    hash: row.hash,
    at: row.at,
    signature: row.signature,
  };
}

export function entryOf(row: AuditRow): AuditEntry {
  return {
    sequence: Number(row.sequence),
    at: row.at,
    actor: row.actor,
    action: row.action as AuditAction,
    referenceId: row.reference_id,
    status: row.status as DisbursementStatus | null,
    amount: row.amount,
    currency: row.currency,
    detail: row.detail,
    hash: row.hash,
    previousHash: row.previous_hash,
    mac: row.mac ?? null,
  };
}

/** An audit page's filter and cursor as SQL on `audit_log`, placeholders by `param`. */
export function auditCondition(merchantId: string, query: AuditQuery, param: (index: number) => string): Condition {
  const values: unknown[] = [merchantId];
  const next = (value: unknown) => {
    values.push(value);
    return param(values.length);
  };
  const parts = [`merchant_id = ${param(1)}`];
  const { filter } = query;
  if (query.after !== undefined) parts.push(`sequence > ${next(query.after)}`);
  if (filter.referenceId !== undefined) parts.push(`reference_id = ${next(filter.referenceId)}`);
  if (filter.actor !== undefined) parts.push(`actor = ${next(filter.actor)}`);
  if (filter.actions && filter.actions.length > 0)
    parts.push(`action IN (${filter.actions.map((a) => next(a)).join(', ')})`);
  if (filter.from !== undefined) parts.push(`at >= ${next(filter.from)}`);
  if (filter.to !== undefined) parts.push(`at <= ${next(filter.to)}`);
  return { sql: parts.join(' AND '), values };
}
