import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { AuditEntry } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { StoredPayout } from '../disbursements/audit.verify';
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
  /** Up to `limit` of the merchant's payouts whose referenceId sorts after `after`, in that order. */
  payouts(merchantId: string, after: string, limit: number): Promise<StoredPayout[]>;
  /** The last entry about the payout that gave its status. */
  lastEntryAbout(merchantId: string, referenceId: string): Promise<AuditEntry | undefined>;
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
  `SELECT reference_id, status, currency, amount_minor, record FROM payouts
   WHERE merchant_id = ${p(1)} AND reference_id > ${p(2)} ORDER BY reference_id LIMIT ${p(3)}`;
const LAST_ABOUT = (p: (index: number) => string) =>
  `SELECT * FROM audit_log WHERE merchant_id = ${p(1)} AND reference_id = ${p(2)} AND status IS NOT NULL
   ORDER BY sequence DESC LIMIT 1`;

interface PayoutRow {
  reference_id: string;
  status: string;
  currency: string;
  amount_minor: number | string;
  record: string;
}

const payoutOf = (row: PayoutRow): StoredPayout => ({
  referenceId: row.reference_id,
  status: row.status,
  currency: row.currency,
  amountMinor: Number(row.amount_minor),
  record: JSON.parse(row.record) as Disbursement,
});

/** The embedded file, opened read-only: the gateway may keep running and writing beside it. */
export function sqliteAuditLog(db: Database.Database): AuditLogReader {
  const merchant = db.prepare(MERCHANT_AFTER('@after'));
  const head = db.prepare(`${HEAD}?`);
  const page = db.prepare(PAGE(() => '?'));
  const checkpoints = db.prepare(`${CHECKPOINTS}? ORDER BY sequence`);
  const payouts = db.prepare(PAYOUTS(() => '?'));
  const lastAbout = db.prepare(LAST_ABOUT(() => '?'));
  return {
    merchantAfter: async (after) => (merchant.get({ after: after ?? '' }) as { id: string | null }).id ?? undefined,
    head: async (merchantId) => head.get(merchantId) as ChainHead | undefined,
    entries: async (merchantId, sequence, limit) => (page.all(merchantId, sequence, limit) as AuditRow[]).map(entryOf),
    checkpoints: async (merchantId) => (checkpoints.all(merchantId) as CheckpointRow[]).map(checkpointOf),
    payouts: async (merchantId, after, limit) => (payouts.all(merchantId, after, limit) as PayoutRow[]).map(payoutOf),
    lastEntryAbout: async (merchantId, referenceId) => {
      const row = lastAbout.get(merchantId, referenceId) as AuditRow | undefined;
      return row && entryOf(row);
    },
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
    async lastEntryAbout(merchantId, referenceId) {
      const { rows } = await pool.query<AuditRow>(LAST_ABOUT(dollar), [merchantId, referenceId]);
      return rows[0] && entryOf(rows[0]);
    },
    close: () => pool.end(),
  };
}
