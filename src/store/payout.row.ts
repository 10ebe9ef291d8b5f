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
import { PAYOUTS_TABLE_COLUMNS } from '../database/schema.declared';
import { join, listOf, placeholders, raw, shape, sql, Sql } from '../database/sql.dialect';

type ColumnValue = string | number | null;

/** A column of the payouts table, as the schema declares it. */
type PayoutColumnName = (typeof PAYOUTS_TABLE_COLUMNS)[number];

/**
 * The columns of the row that no write sets from the record: its keys, its place in its merchant's
 * history (`created_at`, set once by the insert) and its `revision` (1, then grown by each update).
 */
export const KEPT_COLUMNS = [
  'merchant_id',
  'reference_id',
  'created_at',
  'revision',
] as const satisfies readonly PayoutColumnName[];

/**
 * The columns every write of a payout sets, declared once: how each comes from the record and the
 * write's time. Both engines' insert and update statements are built from this list (below), so a
 * column added here is written everywhere, and one dropped from it nowhere. The compiler holds it,
 * with KEPT_COLUMNS, to the schema's declared columns: one missing or one extra does not build.
 */
const WRITTEN = {
  written_at: (_: Disbursement, writtenAt: number) => writtenAt,
  status: (record: Disbursement) => record.status,
  channel: (record: Disbursement) => record.channel,
  currency: (record: Disbursement) => record.currency,
  amount_minor: (record: Disbursement) => toMinor(record.amount),
  final: (record: Disbursement) => (isFinal(record.status) ? 1 : 0),
  due_at: (record: Disbursement) => (record.due === undefined ? null : Date.parse(record.due.at)),
  due_kind: (record: Disbursement) => record.due?.kind ?? null,
  leased_until: (record: Disbursement) => (record.leasedUntil === undefined ? null : Date.parse(record.leasedUntil)),
  record: (record: Disbursement) => JSON.stringify(record),
} satisfies Record<
  Exclude<PayoutColumnName, (typeof KEPT_COLUMNS)[number]>,
  (record: Disbursement, writtenAt: number) => ColumnValue
>;

/** The written columns by name, as both engines store them. */
export type PayoutColumns = { [K in keyof typeof WRITTEN]: ReturnType<(typeof WRITTEN)[K]> };

/** The written columns' names, in the order the statements name them and take their values. */
export const WRITTEN_COLUMNS = Object.keys(WRITTEN) as readonly (keyof PayoutColumns)[];

export function payoutColumns(record: Disbursement, writtenAt: number): PayoutColumns {
  const columns: Record<string, ColumnValue> = {};
  for (const name of WRITTEN_COLUMNS) columns[name] = WRITTEN[name](record, writtenAt);
  return columns as PayoutColumns;
}

/** Each written column's type, for a value outside a VALUES list (where no column gives it one). */
const COLUMN_TYPES: Record<keyof PayoutColumns, string> = {
  written_at: 'bigint',
  status: 'text',
  channel: 'text',
  currency: 'text',
  amount_minor: 'bigint',
  final: 'integer',
  due_at: 'bigint',
  due_kind: 'text',
  leased_until: 'bigint',
  record: 'text',
};

/** The claim's column list and each written column's `name = `, built once. */
const CLAIMED_COLUMNS = raw(`merchant_id, reference_id, created_at, ${WRITTEN_COLUMNS.join(', ')}, revision`);
const SET_NAMES = Object.fromEntries(WRITTEN_COLUMNS.map((name) => [name, raw(`${name} = `)])) as Record<
  keyof PayoutColumns,
  Sql
>;

const typedAs = (value: unknown, type: string) => sql`CAST(${value} AS ${raw(type)})`;

/** The claim's statement of one row, built once: the keys, `created_at`, then the written columns. */
const CLAIM_ONE = shape(
  sql`INSERT INTO payouts (${CLAIMED_COLUMNS}) VALUES (${placeholders(3 + WRITTEN_COLUMNS.length)}, 1)
    ON CONFLICT (merchant_id, reference_id) DO NOTHING`,
);

/**
 * The claim of a new row, at revision 1, unless one holds its key: its keys, `created_at` and the
 * written columns; with `source`, one row per row of `source` (the values then cast to their
 * columns' types, which a VALUES list would give them). Both engines run this statement.
 */
export function claimRow(record: Disbursement, columns: PayoutColumns, source?: Sql): Sql {
  if (!source)
    return CLAIM_ONE([
      record.merchantId,
      record.referenceId,
      createdAtOf(record),
      ...WRITTEN_COLUMNS.map((name) => columns[name]),
    ]);
  const values = join([
    typedAs(record.merchantId, 'text'),
    typedAs(record.referenceId, 'text'),
    typedAs(createdAtOf(record), 'bigint'),
    ...WRITTEN_COLUMNS.map((name) => typedAs(columns[name], COLUMN_TYPES[name])),
  ]);
  return sql`INSERT INTO payouts (${CLAIMED_COLUMNS}) SELECT ${values}, 1 FROM ${source}
    ON CONFLICT (merchant_id, reference_id) DO NOTHING`;
}

/** A row as it was read or last written: a write of it lands only while it is still so. */
export interface RowVersion {
  merchantId: string;
  referenceId: string;
  /** The row's revision, grown by one by every write. */
  revision: string;
  /** The record text this process last wrote there, when the row was not read: it must still be that. */
  written?: string;
}

/** The row's key and the revision it must be at, and the record text it must still hold when given. */
function version(at: RowVersion): Sql {
  const text = at.written === undefined ? raw('') : sql` AND record = ${at.written}`;
  return sql`merchant_id = ${at.merchantId} AND reference_id = ${at.referenceId} AND revision = ${at.revision}${text}`;
}

/** The rewrite's two statements, built once: at a revision read, and at a revision and the text last written. */
const SET_ALL = join(WRITTEN_COLUMNS.map((name) => sql`${SET_NAMES[name]}${null}`));
const REWRITE_READ = shape(sql`UPDATE payouts SET ${SET_ALL}, revision = revision + 1
  WHERE ${version({ merchantId: '', referenceId: '', revision: '' })}`);
const REWRITE_WRITTEN = shape(sql`UPDATE payouts SET ${SET_ALL}, revision = revision + 1
  WHERE ${version({ merchantId: '', referenceId: '', revision: '', written: '' })}`);

/** The row written again at the version it was read at, its revision grown by one. Both engines run this statement. */
export function rewriteRow(at: RowVersion, columns: PayoutColumns): Sql {
  const set = WRITTEN_COLUMNS.map((name) => columns[name]);
  return at.written === undefined
    ? REWRITE_READ([...set, at.merchantId, at.referenceId, at.revision])
    : REWRITE_WRITTEN([...set, at.merchantId, at.referenceId, at.revision, at.written]);
}

/** The row removed at the version it was read at. Both engines run this statement. */
export const eraseRow = (at: RowVersion): Sql => sql`DELETE FROM payouts WHERE ${version(at)}`;

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

/**
 * The history filter (and, for a page, the cursor) as SQL on `payouts`. A prefix compares the
 * text's start exactly (LIKE would fold case in SQLite and treat `%` and `_` as wildcards).
 */
export function historyCondition(merchantId: string, filter: HistoryFilter, after: HistoryPosition | undefined): Sql {
  const parts = [sql`merchant_id = ${merchantId}`];
  if (after) parts.push(sql`(created_at, reference_id) < (${after.at}, ${after.referenceId})`);
  if (filter.createdFrom !== undefined) parts.push(sql`created_at >= ${filter.createdFrom}`);
  if (filter.createdTo !== undefined) parts.push(sql`created_at <= ${filter.createdTo}`);
  if (filter.statuses && filter.statuses.length > 0) parts.push(sql`status IN (${listOf(filter.statuses)})`);
  if (filter.channel) parts.push(sql`channel = ${filter.channel}`);
  if (filter.referenceIdPrefix) {
    const prefix = filter.referenceIdPrefix;
    parts.push(sql`substr(reference_id, 1, ${prefix.length}) = ${prefix}`);
  }
  return join(parts, ' AND ');
}

/** A history page's SELECT: one more row than asked, to know whether more follow. */
export function historyPageSql(where: Sql, query: HistoryQuery): Sql {
  return sql`SELECT created_at, reference_id, record FROM payouts WHERE ${where}
  ORDER BY created_at DESC, reference_id DESC LIMIT ${query.limit + 1}`;
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
  /** The id an entry keyed by content carries (version 10 on); absent before version 10. */
  entry_id?: string | null;
  /** Absent when read from a database not yet migrated to version 11. */
  key_id?: string | null;
}

/** An audit_checkpoints row as both engines return it. */
export interface CheckpointRow {
  merchant_id: string;
  sequence: number | string;
  hash: string;
  at: string;
  signature: string;
  /** Absent when read from a database not yet migrated to version 11. */
  key_id?: string | null;
}

export function checkpointOf(row: CheckpointRow): AuditCheckpoint {
  return {
    merchantId: row.merchant_id,
    sequence: Number(row.sequence),
    hash: row.hash,
    at: row.at,
    signature: row.signature,
    keyId: row.key_id ?? null,
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
    entryId: row.entry_id ?? null,
    keyId: row.key_id ?? null,
  };
}

/** An audit page's filter and cursor as SQL on `audit_log`. */
export function auditCondition(merchantId: string, query: AuditQuery): Sql {
  const parts = [sql`merchant_id = ${merchantId}`];
  const { filter } = query;
  if (query.after !== undefined) parts.push(sql`sequence > ${query.after}`);
  if (filter.referenceId !== undefined) parts.push(sql`reference_id = ${filter.referenceId}`);
  if (filter.actor !== undefined) parts.push(sql`actor = ${filter.actor}`);
  if (filter.actions && filter.actions.length > 0) parts.push(sql`action IN (${listOf(filter.actions)})`);
  if (filter.from !== undefined) parts.push(sql`at >= ${filter.from}`);
  if (filter.to !== undefined) parts.push(sql`at <= ${filter.to}`);
  return join(parts, ' AND ');
}
