import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { AuditEntry } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { LastEntry, StoredPayout } from '../disbursements/audit.verify';
import { Disbursement } from '../disbursements/disbursement.model';
import { AuditRow, checkpointOf, CheckpointRow, entryOf } from './payout.row';
import { compile, join, raw, Sql, sql } from '../database/sql.dialect';
import { sqliteRunner } from '../database/sqlite.prepared';
import { Rows } from './store.read';

/** Where a merchant's chain ends, as its head row records it. */
export interface ChainHead {
  sequence: number;
  hash: string;
}

/**
 * The audit chains of a database as the verifier and `audit:checkpoint` read them, a bounded page
 * at a time, with nothing written: merchants in id order, each one's entries in sequence order.
 */
export interface AuditLogReader {
  /**
   * The first merchant any table knows (entries, a head row, a checkpoint or a payout) whose id sorts
   * after `after` (any, when undefined): a merchant whose entries were all removed is still found.
   */
  merchantAfter(after: string | undefined): Promise<string | undefined>;
  /** The head row's last sequence and hash: where the chain must at least reach. */
  head(merchantId: string): Promise<ChainHead | undefined>;
  /** Up to `limit` entries after `sequence`, in order. */
  entries(merchantId: string, sequence: number, limit: number): Promise<AuditEntry[]>;
  /** Every checkpoint kept for the merchant, oldest first. */
  checkpoints(merchantId: string): Promise<AuditCheckpoint[]>;
  /**
   * Up to `limit` of the merchant's payouts whose referenceId sorts after `after`, in that order,
   * each with the last entry about it that gave its status, read in the same statement: a write
   * committing meanwhile changes both or neither.
   */
  payouts(merchantId: string, after: string, limit: number): Promise<{ payout: StoredPayout; last?: LastEntry }[]>;
  /**
   * Up to `limit` referenceIds sorting after `after`, in that order, whose last entry says the payout
   * exists (a status) while no payout row has it: removed otherwise than as the trail records.
   */
  rowless(merchantId: string, after: string, limit: number): Promise<RowlessPayout[]>;
  close(): Promise<void>;
}

const merchantAfter = (after: string) =>
  sql`SELECT min(id) AS id FROM (${join(
    ['audit_log', 'merchant_heads', 'audit_checkpoints', 'payouts'].map(
      (table) => sql`SELECT min(merchant_id) AS id FROM ${raw(table)} WHERE merchant_id > ${after}`,
    ),
    ' UNION ALL ',
  )}) AS known`;
const head = (merchantId: string) =>
  sql`SELECT audit_sequence AS sequence, audit_hash AS hash FROM merchant_heads WHERE merchant_id = ${merchantId}`;
const page = (merchantId: string, sequence: number, limit: number) =>
  sql`SELECT * FROM audit_log WHERE merchant_id = ${merchantId} AND sequence > ${sequence} ORDER BY sequence LIMIT ${limit}`;
const checkpoints = (merchantId: string) =>
  sql`SELECT * FROM audit_checkpoints WHERE merchant_id = ${merchantId} ORDER BY sequence`;
const payouts = (merchantId: string, after: string, limit: number) =>
  sql`SELECT p.reference_id, p.status, p.currency, p.amount_minor, p.record, a.sequence AS last_sequence,
     a.status AS last_status, a.amount AS last_amount, a.currency AS last_currency,
     (SELECT r.detail FROM audit_log r WHERE r.merchant_id = p.merchant_id AND r.reference_id = p.reference_id
        AND r.action = 'CREATE_REQUESTED' ORDER BY r.sequence LIMIT 1) AS requested_detail
   FROM payouts p LEFT JOIN audit_log a ON a.merchant_id = p.merchant_id AND a.sequence = (
     SELECT max(l.sequence) FROM audit_log l
     WHERE l.merchant_id = p.merchant_id AND l.reference_id = p.reference_id AND l.status IS NOT NULL)
   WHERE p.merchant_id = ${merchantId} AND p.reference_id > ${after} ORDER BY p.reference_id LIMIT ${limit}`;

/** A payout the trail says exists, and the entry that says so last. */
export interface RowlessPayout {
  referenceId: string;
  sequence: number;
  status: string;
}

const rowless = (merchantId: string, after: string, limit: number) =>
  sql`SELECT a.reference_id, a.sequence, a.status FROM audit_log a
   WHERE a.merchant_id = ${merchantId} AND a.reference_id > ${after} AND a.status IS NOT NULL
     AND a.sequence = (SELECT max(l.sequence) FROM audit_log l
       WHERE l.merchant_id = a.merchant_id AND l.reference_id = a.reference_id)
     AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.merchant_id = a.merchant_id AND p.reference_id = a.reference_id)
   ORDER BY a.reference_id LIMIT ${limit}`;

interface RowlessRow {
  reference_id: string;
  sequence: number | string;
  status: string;
}

const rowlessOf = (row: RowlessRow): RowlessPayout => ({
  referenceId: row.reference_id,
  sequence: Number(row.sequence),
  status: row.status,
});

interface PayoutRow {
  reference_id: string;
  status: string;
  currency: string;
  amount_minor: number | string;
  record: string;
  last_sequence: number | string | null;
  last_status: string | null;
  last_amount: string | null;
  last_currency: string | null;
  requested_detail: string | null;
}

const payoutOf = (row: PayoutRow): { payout: StoredPayout; last?: LastEntry } => ({
  payout: {
    referenceId: row.reference_id,
    status: row.status,
    currency: row.currency,
    amountMinor: Number(row.amount_minor),
    record: JSON.parse(row.record) as Disbursement,
  },
  last:
    row.last_sequence === null
      ? undefined
      : {
          sequence: Number(row.last_sequence),
          status: row.last_status as LastEntry['status'],
          amount: row.last_amount,
          currency: row.last_currency,
          requestedDetail: row.requested_detail,
        },
});

/**
 * The reader over any engine, given how to run one statement there; PostgreSQL answers BIGINT as text,
 * so every number is read with Number.
 */
function auditLogReader(all: (statement: Sql) => Promise<Rows>, close: () => Promise<void>): AuditLogReader {
  const rows = async <R>(statement: Sql) => (await all(statement)) as R[];
  return {
    async merchantAfter(after) {
      const [row] = await rows<{ id: string | null }>(merchantAfter(after ?? ''));
      return row.id ?? undefined;
    },
    async head(merchantId) {
      const [row] = await rows<{ sequence: number | string; hash: string }>(head(merchantId));
      return row && { sequence: Number(row.sequence), hash: row.hash };
    },
    entries: async (merchantId, sequence, limit) =>
      (await rows<AuditRow>(page(merchantId, sequence, limit))).map(entryOf),
    checkpoints: async (merchantId) => (await rows<CheckpointRow>(checkpoints(merchantId))).map(checkpointOf),
    payouts: async (merchantId, after, limit) =>
      (await rows<PayoutRow>(payouts(merchantId, after, limit))).map(payoutOf),
    rowless: async (merchantId, after, limit) =>
      (await rows<RowlessRow>(rowless(merchantId, after, limit))).map(rowlessOf),
    close,
  };
}

/** The embedded file, opened read-only: the gateway may keep running and writing beside it. */
export function sqliteAuditLog(db: Database.Database): AuditLogReader {
  const q = sqliteRunner(db);
  return auditLogReader(
    async (statement) => q.all(statement),
    async () => void db.close(),
  );
}

/** PostgreSQL: plain reads on a pool of its own. */
export function postgresAuditLog(pool: Pool): AuditLogReader {
  return auditLogReader(
    async (statement) => {
      const { text, values } = compile(statement, 'postgres');
      return (await pool.query(text, values)).rows as Rows;
    },
    () => pool.end(),
  );
}
