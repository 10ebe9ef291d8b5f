import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { bookQuery, recordOf } from './beneficiary.statements';
import { Disbursement } from '../disbursements/disbursement.model';
import {
  AuditPage,
  AuditQuery,
  HistoryEntry,
  HistoryPage,
  HistoryPosition,
  HistoryQuery,
  LoggedChange,
  MerchantChainHead,
  WaitingWork,
  START_POSITION,
  StatementLine,
} from '../disbursements/disbursement.ports';
import { Sql, sql } from '../database/sql.dialect';
import {
  auditCondition,
  AuditRow,
  checkpointOf,
  CheckpointRow,
  entryOf,
  historyCondition,
  historyEntryOf,
  historyPageSql,
  HistoryRow,
} from './payout.row';
import { read, Read } from './store.read';

/*
 * The reads both stores make, each written once: its statement and how its rows become the answer
 * (store.read.ts). A name is PostgreSQL's prepared statement for that fixed text. PostgreSQL answers a
 * BIGINT (and a count) as text, SQLite as a number: every such column is read with Number.
 */

const parsed = (record: string) => JSON.parse(record) as Disbursement;

/** The payout's record and the revision a conditional write expects. */
export const current = (merchantId: string, referenceId: string) =>
  read(
    'get',
    sql`SELECT revision, record FROM payouts WHERE merchant_id = ${merchantId} AND reference_id = ${referenceId}`,
    ([row]: ({ revision: number | string; record: string } | undefined)[]) =>
      row && { revision: String(row.revision), record: parsed(row.record), written: row.record },
  );

/** The records asked for, in the order asked, undefined for each missing. */
export const many = (merchantId: string, referenceIds: readonly string[]) =>
  read(
    'get-many',
    {
      sqlite: sql`SELECT reference_id, record FROM payouts WHERE merchant_id = ${merchantId}
        AND reference_id IN (SELECT value FROM json_each(${JSON.stringify(referenceIds)}))`,
      postgres: sql`SELECT reference_id, record FROM payouts WHERE merchant_id = ${merchantId}
        AND reference_id = ANY(${referenceIds}::text[])`,
    },
    (rows: { reference_id: string; record: string }[]) => {
      const found = new Map(rows.map((r) => [r.reference_id, r.record]));
      return referenceIds.map((id) => {
        const json = found.get(id);
        return json === undefined ? undefined : parsed(json);
      });
    },
  );

/** The day's reserved minor units: the merchant's counter (actor '') and the actor's. */
export const reserved = (merchantId: string, day: string, currency: string, actorId: string) =>
  read(
    'reserved',
    sql`SELECT actor_id, minor FROM daily_reservations
      WHERE merchant_id = ${merchantId} AND day = ${day} AND currency = ${currency} AND actor_id IN ('', ${actorId})`,
    (rows: { actor_id: string; minor: number | string }[]) => {
      const minorOf = (actor: string) => Number(rows.find((r) => r.actor_id === actor)?.minor ?? 0);
      return { merchant: minorOf(''), actor: minorOf(actorId) };
    },
  );

/** A page of the merchant's beneficiary book and how many the filter matches (PostgreSQL answers a count as text). */
export const beneficiaryPage = (merchantId: string, query: BeneficiaryQuery): Read<BeneficiaryPage> => {
  const { page, count } = bookQuery(merchantId, query);
  return {
    statements: [{ sql: page }, { sql: count }],
    answer: ([rows, counted]) => {
      const records = rows as { record: string }[];
      const [{ count: total }] = counted as { count: number | string }[];
      return {
        beneficiaries: records.slice(0, query.limit).map((row) => JSON.parse(row.record) as Beneficiary),
        hasMore: records.length > query.limit,
        totalCount: Number(total),
      };
    },
  };
};

export const beneficiary = (merchantId: string, id: string) =>
  read(
    'beneficiary-get',
    recordOf(merchantId, id),
    ([row]: ({ record: string } | undefined)[]) => row && (JSON.parse(row.record) as Beneficiary),
  );

/** Chain heads past their merchant's last signed checkpoint. */
export const unsignedHeads = () =>
  read(
    'unsigned-heads',
    sql`SELECT merchant_id, audit_sequence, audit_hash FROM merchant_heads h
  WHERE audit_sequence > coalesce((SELECT max(sequence) FROM audit_checkpoints c WHERE c.merchant_id = h.merchant_id), 0)
  ORDER BY merchant_id`,
    (rows: { merchant_id: string; audit_sequence: number | string; audit_hash: string }[]): MerchantChainHead[] =>
      rows.map((r) => ({ merchantId: r.merchant_id, sequence: Number(r.audit_sequence), hash: r.audit_hash })),
  );

/** The merchant's audit head as its head row records it (none before its first entry). */
export const auditHead = (merchantId: string) =>
  read(
    'audit-head-read',
    sql`SELECT audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = ${merchantId} AND audit_sequence > 0`,
    ([head]: ({ audit_sequence: number | string; audit_hash: string } | undefined)[]) =>
      head && { sequence: Number(head.audit_sequence), hash: head.audit_hash },
  );

export const latestCheckpoints = (merchantId: string, limit: number) =>
  read(
    'latest-checkpoints',
    sql`SELECT * FROM audit_checkpoints WHERE merchant_id = ${merchantId} ORDER BY sequence DESC LIMIT ${limit}`,
    (rows: CheckpointRow[]): AuditCheckpoint[] => rows.map(checkpointOf),
  );

export const auditPage = (merchantId: string, query: AuditQuery) =>
  read(
    undefined,
    sql`SELECT * FROM audit_log WHERE ${auditCondition(merchantId, query)} ORDER BY sequence LIMIT ${query.limit + 1}`,
    (rows: AuditRow[]): AuditPage => ({
      entries: rows.slice(0, query.limit).map(entryOf),
      hasMore: rows.length > query.limit,
    }),
    true,
  );

/** Sums by currency and status; `count` and `minor` as the engine answers them. */
export interface StatementRow {
  currency: string;
  status: StatementLine['status'];
  count: number | string;
  minor: number | string;
}

/** A statement's window summed in one statement. */
export const statement = (merchantId: string, from: number, to: number) =>
  read(
    'statement',
    sql`SELECT currency, status, count(*) AS count, sum(amount_minor) AS minor FROM payouts
       WHERE merchant_id = ${merchantId} AND created_at >= ${from} AND created_at < ${to}
       GROUP BY currency, status ORDER BY currency, status`,
    (rows: StatementRow[]): StatementLine[] =>
      rows.map((r) => ({
        currency: r.currency,
        status: r.status,
        count: Number(r.count),
        amountMinor: Number(r.minor),
      })),
  );

/**
 * A keyset page of payouts created in [from, to), after (created_at, reference_id). The range starts
 * at the page's first possible row: SQLite seeks the index on the created_at range, not on the row
 * value, so from the window's start each page would first step over every row before it (pages ever
 * slower, an export's time growing with its square).
 */
export const createdBetween = (
  merchantId: string,
  window: { from: number; to: number },
  after: HistoryPosition | undefined,
  limit: number,
) =>
  read(
    'created-between',
    sql`SELECT created_at, reference_id, record FROM payouts
  WHERE merchant_id = ${merchantId} AND created_at >= ${Math.max(window.from, after?.at ?? window.from)}
  AND created_at < ${window.to} AND (created_at, reference_id) > (${after?.at ?? window.from - 1}, ${after?.referenceId ?? ''})
  ORDER BY created_at, reference_id LIMIT ${limit}`,
    (rows: HistoryRow[]): HistoryEntry[] => rows.map(historyEntryOf),
    true,
  );

/** A keyset page of payouts written since `since`, after (created_at, reference_id). */
export const writtenSince = (merchantId: string, since: number, after: HistoryPosition | undefined, limit: number) =>
  read(
    'written-since',
    sql`SELECT created_at, reference_id, record FROM payouts
  WHERE merchant_id = ${merchantId} AND written_at >= ${since}
  AND (created_at, reference_id) > (${after?.at ?? -1}, ${after?.referenceId ?? ''})
  ORDER BY created_at, reference_id LIMIT ${limit}`,
    (rows: HistoryRow[]): HistoryEntry[] => rows.map(historyEntryOf),
    true,
  );

/** Whether a row's merchant is one of `merchantIds`, as each engine reads a list given as one value. */
const servedBy = (merchantIds: readonly string[]) => ({
  sqlite: sql`merchant_id IN (SELECT value FROM json_each(${JSON.stringify(merchantIds)}))`,
  postgres: sql`merchant_id = ANY(${merchantIds}::text[])`,
});

const dueOf = (now: number, limit: number, served: Sql) =>
  sql`SELECT record FROM payouts WHERE due_at IS NOT NULL AND due_at <= ${now}
        AND (leased_until IS NULL OR leased_until <= ${now}) AND ${served} ORDER BY due_at LIMIT ${limit}`;

/** What is due, of the merchants given (every one, when none are): a merchant not served can block no other's. */
export const due = (now: number, limit: number, merchantIds?: readonly string[]) => {
  if (merchantIds === undefined) return read('due', dueOf(now, limit, sql`TRUE`), parsedRecords);
  const served = servedBy(merchantIds);
  return read(
    'due-served',
    { sqlite: dueOf(now, limit, served.sqlite), postgres: dueOf(now, limit, served.postgres) },
    parsedRecords,
  );
};

const parsedRecords = (rows: { record: string }[]) => rows.map((r) => parsed(r.record));

/**
 * Up to `limit` payouts the gateway has yet to send on a decision (held, scheduled, or sent with an
 * unknown outcome), of every merchant, after `after` in key order: the re-seal at start reads them a
 * page at a time.
 */
export const unsent = (after: { merchantId: string; referenceId: string } | undefined, limit: number) =>
  read(
    'unsent',
    sql`SELECT record FROM payouts WHERE due_at IS NOT NULL AND status IN ('AWAITING_APPROVAL', 'SCHEDULED', 'UNKNOWN')
        AND (merchant_id, reference_id) > (${after?.merchantId ?? ''}, ${after?.referenceId ?? ''})
        ORDER BY merchant_id, reference_id LIMIT ${limit}`,
    parsedRecords,
    true,
  );

/** Due work of merchants not served is counted up to this many: enough to alert on, bounded to read. */
export const UNSERVED_COUNTED = 10_000;

const unservedOf = (now: number, served: Sql) =>
  sql`SELECT count(*) AS unserved FROM (SELECT 1 FROM payouts WHERE due_at IS NOT NULL AND due_at <= ${now}
    AND NOT ${served} LIMIT ${UNSERVED_COUNTED}) AS due_rows`;
const scheduledOf = (served: Sql) =>
  sql`SELECT count(*) AS scheduled, min(due_at) AS earliest FROM payouts
    WHERE due_kind = 'SEND' AND due_at IS NOT NULL AND status = 'SCHEDULED' AND ${served}`;
const resendsOf = (served: Sql) =>
  sql`SELECT count(*) AS resends FROM payouts
    WHERE due_kind IN ('RESEND', 'SEND') AND due_at IS NOT NULL AND status = 'UNKNOWN' AND ${served}`;

/**
 * The work waiting for its time, of the merchants served, and how much due work belongs to none of
 * them: three reads of ranges of the due indexes (by kind for the first two), never a scan of every
 * payout with a due time.
 */
export const waitingWork = (now: number, merchantIds: readonly string[]): Read<WaitingWork> => {
  const served = servedBy(merchantIds);
  const each = (of: (served: Sql) => Sql) => ({ sqlite: of(served.sqlite), postgres: of(served.postgres) });
  return {
    statements: [
      { name: 'waiting-scheduled', sql: each(scheduledOf) },
      { name: 'waiting-resends', sql: each(resendsOf) },
      { name: 'waiting-unserved', sql: each((s) => unservedOf(now, s)) },
    ],
    answer: ([[scheduled], [resends], [unserved]]) => {
      const s = scheduled as { scheduled: number | string; earliest: number | string | null };
      return {
        scheduled: Number(s.scheduled),
        earliestScheduledAt: s.earliest === null ? undefined : Number(s.earliest),
        resends: Number((resends as { resends: number | string }).resends),
        unserved: Number((unserved as { unserved: number | string }).unserved),
      };
    },
  };
};

/** A history page and how many payouts its filter matches in all: two statements. */
export function history(merchantId: string, query: HistoryQuery): Read<HistoryPage> {
  const page = historyPageSql(historyCondition(merchantId, query.filter, query.after), query);
  const all = historyCondition(merchantId, query.filter, undefined);
  return {
    statements: [{ sql: page }, { sql: sql`SELECT count(*) AS count FROM payouts WHERE ${all}` }],
    answer: ([rows, counted]) => {
      const entries = (rows as readonly HistoryRow[]).slice(0, query.limit).map(historyEntryOf);
      const last = entries.at(-1);
      return {
        entries,
        hasMore: rows.length > query.limit,
        endPosition: last ? { at: last.at, referenceId: last.referenceId } : query.after,
        totalCount: Number((counted as readonly { count: number | string }[])[0].count),
      };
    },
  };
}

export const changesAfter = (merchantId: string, position: string, limit: number) =>
  read(
    'changes-after',
    sql`SELECT position, record FROM payout_changes WHERE merchant_id = ${merchantId} AND position > ${position}
      ORDER BY position LIMIT ${limit}`,
    (rows: { position: number | string; record: string }[]): LoggedChange[] =>
      rows.map((r) => ({ position: String(r.position), record: parsed(r.record) })),
  );

/** Whether the change is kept: logged at or after `kept`. */
export const hasChange = (merchantId: string, position: string, kept: number) =>
  read(
    'has-change',
    sql`SELECT 1 FROM payout_changes WHERE merchant_id = ${merchantId} AND position = ${position} AND at >= ${kept}`,
    (rows) => rows.length > 0,
  );

export const latestChange = (merchantId: string) =>
  read(
    'latest-change',
    sql`SELECT change_position FROM merchant_heads WHERE merchant_id = ${merchantId}`,
    ([head]: ({ change_position: number | string } | undefined)[]) =>
      head ? String(head.change_position) : START_POSITION,
  );
