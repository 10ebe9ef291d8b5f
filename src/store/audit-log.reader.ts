import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { AuditEntry } from '../disbursements/audit.entry';
import { AuditRow, entryOf } from './payout.row';
import { dollar } from './postgres.statements';

/** Where a merchant's chain ends, as its head row records it. */
export interface ChainHead {
  sequence: number;
  hash: string;
}

/**
 * The audit chains of a database as the verifier reads them, a bounded page at a time, with
 * nothing written: merchants in id order, each one's entries in sequence order.
 */
export interface AuditLogReader {
  /** The first merchant with entries whose id sorts after `after` (any, when undefined). */
  merchantAfter(after: string | undefined): Promise<string | undefined>;
  /** The head row's last sequence and hash: where the chain must at least reach. */
  head(merchantId: string): Promise<ChainHead | undefined>;
  /** Up to `limit` entries after `sequence`, in order. */
  entries(merchantId: string, sequence: number, limit: number): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

const MERCHANT_AFTER = 'SELECT min(merchant_id) AS id FROM audit_log WHERE merchant_id > ';
const HEAD = 'SELECT audit_sequence AS sequence, audit_hash AS hash FROM merchant_heads WHERE merchant_id = ';
const PAGE = (p: (index: number) => string) =>
  `SELECT * FROM audit_log WHERE merchant_id = ${p(1)} AND sequence > ${p(2)} ORDER BY sequence LIMIT ${p(3)}`;

/** The embedded file, opened read-only: the gateway may keep running and writing beside it. */
export function sqliteAuditLog(db: Database.Database): AuditLogReader {
  const merchant = db.prepare(`${MERCHANT_AFTER}?`);
  const head = db.prepare(`${HEAD}?`);
  const page = db.prepare(PAGE(() => '?'));
  return {
    merchantAfter: async (after) => (merchant.get(after ?? '') as { id: string | null }).id ?? undefined,
    head: async (merchantId) => head.get(merchantId) as ChainHead | undefined,
    entries: async (merchantId, sequence, limit) => (page.all(merchantId, sequence, limit) as AuditRow[]).map(entryOf),
    close: async () => void db.close(),
  };
}

/** PostgreSQL: plain reads on a pool of its own (BIGINT comes back as text). */
export function postgresAuditLog(pool: Pool): AuditLogReader {
  return {
    async merchantAfter(after) {
      const { rows } = await pool.query<{ id: string | null }>(`${MERCHANT_AFTER}$1`, [after ?? '']);
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
    close: () => pool.end(),
  };
}
