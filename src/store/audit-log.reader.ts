import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { AuditEntry } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { LastEntry, StoredPayout } from '../disbursements/audit.verify';
import { Disbursement } from '../disbursements/disbursement.model';
import { AuditRow, checkpointOf, CheckpointRow, entryOf } from './payout.row';
import { dollar } from './postgres.statements';

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

const MERCHANT_AFTER = (p: string) =>
  `SELECT min(id) AS id FROM (${['audit_log', 'merchant_heads', 'audit_checkpoints', 'payouts']
    .map((table) => `SELECT min(merchant_id) AS id FROM ${table} WHERE merchant_id > ${p}`)
    .join(' UNION ALL ')}) AS known`;
const HEAD = 'SELECT audit_sequence AS sequence, audit_hash AS hash FROM merchant_heads WHERE merchant_id = ';
const PAGE = (p: (index: number) => string) =>
  `SELECT * FROM audit_log WHERE merchant_id = ${p(1)} AND sequence > ${p(2)} ORDER BY sequence LIMIT ${p(3)}`;
const CHECKPOINTS = 'SELECT * FROM audit_checkpoints WHERE merchant_id = ';
const PAYOUTS = (p: (index: number) => string) =>
  `SELECT p.reference_id, p.status, p.currency, p.amount_minor, p.record, a.sequence AS last_sequence,
     a.status AS last_status, a.amount AS last_amount, a.currency AS last_currency,
     (SELECT r.detail FROM audit_log r WHERE r.merchant_id = p.merchant_id AND r.reference_id = p.reference_id
        AND r.action = 'CREATE_REQUESTED' ORDER BY r.sequence LIMIT 1) AS requested_detail
   FROM payouts p LEFT JOIN audit_log a ON a.merchant_id = p.merchant_id AND a.sequence = (
     SELECT max(l.sequence) FROM audit_log l
     WHERE l.merchant_id = p.merchant_id AND l.reference_id = p.reference_id AND l.status IS NOT NULL)
   WHERE p.merchant_id = ${p(1)} AND p.reference_id > ${p(2)} ORDER BY p.reference_id LIMIT ${p(3)}`;

/** A payout the trail says exists, and the entry that says so last. */
export interface RowlessPayout {
  referenceId: string;
  sequence: number;
  status: string;
}

const ROWLESS = (p: (index: number) => string) =>
  `SELECT a.reference_id, a.sequence, a.status FROM audit_log a
   WHERE a.merchant_id = ${p(1)} AND a.reference_id > ${p(2)} AND a.status IS NOT NULL
     AND a.sequence = (SELECT max(l.sequence) FROM audit_log l
       WHERE l.merchant_id = a.merchant_id AND l.reference_id = a.reference_id)
     AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.merchant_id = a.merchant_id AND p.reference_id = a.reference_id)
   ORDER BY a.reference_id LIMIT ${p(3)}`;

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

/** The embedded file, opened read-only: the gateway may keep running and writing beside it. */
export function sqliteAuditLog(db: Database.Database): AuditLogReader {
  const merchant = db.prepare(MERCHANT_AFTER('@after'));
  const head = db.prepare(`${HEAD}?`);
  const page = db.prepare(PAGE(() => '?'));
  const checkpoints = db.prepare(`${CHECKPOINTS}? ORDER BY sequence`);
  const payouts = db.prepare(PAYOUTS(() => '?'));
  const rowless = db.prepare(ROWLESS(() => '?'));
  return {
    merchantAfter: async (after) => (merchant.get({ after: after ?? '' }) as { id: string | null }).id ?? undefined,
    head: async (merchantId) => head.get(merchantId) as ChainHead | undefined,
    entries: async (merchantId, sequence, limit) => (page.all(merchantId, sequence, limit) as AuditRow[]).map(entryOf),
    checkpoints: async (merchantId) => (checkpoints.all(merchantId) as CheckpointRow[]).map(checkpointOf),
    payouts: async (merchantId, after, limit) => (payouts.all(merchantId, after, limit) as PayoutRow[]).map(payoutOf),
    rowless: async (merchantId, after, limit) => (rowless.all(merchantId, after, limit) as RowlessRow[]).map(rowlessOf),
    close: async () => void db.close(),
  };
}

/** PostgreSQL: plain reads on a pool of its own (BIGINT comes back as text). */
export function postgresAuditLog(pool: Pool): AuditLogReader {
  return {
    async merchantAfter(after) {
      const { rows } = await pool.query<{ id: string | null }>(MERCHANT_AFTER('$1'), [after ?? '']);
      return rows[0].id ?? undefined;
    },
    async head(merchantId) {
      const { rows } = await pool.query<{ sequence: string; hash: string }>(`${HEAD}$1`, [merchantId]);
      return rows[0] && { sequence: Number(rows[0].sequence), hash: rows[0].hash };
    },
    async entries(merchantId, sequence, limit) {
      const { rows } = await pool.query<AuditRow>(PAGE(dollar), [merchantId, sequence, limit]);
      return rows.map(entryOf);
    },
    async checkpoints(merchantId) {
      const { rows } = await pool.query<CheckpointRow>(`${CHECKPOINTS}$1 ORDER BY sequence`, [merchantId]);
      return rows.map(checkpointOf);
    },
    async payouts(merchantId, after, limit) {
      const { rows } = await pool.query<PayoutRow>(PAYOUTS(dollar), [merchantId, after, limit]);
      return rows.map(payoutOf);
    },
    async rowless(merchantId, after, limit) {
      const { rows } = await pool.query<RowlessRow>(ROWLESS(dollar), [merchantId, after, limit]);
      return rows.map(rowlessOf);
    },
    close: () => pool.end(),
  };
}
