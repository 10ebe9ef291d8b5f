import type { Database, Statement } from 'better-sqlite3';
import { FINAL_BEFORE } from './shared.statements';
import { ENQUEUE } from '../database/relay-jobs.statements';
import { insertPayoutSql, updatePayoutSet, WRITTEN_COLUMNS } from './payout.row';

// The embedded store's write statements, prepared once when the store opens (its reads: shared.statements.ts).

/** A `?` for each written column. */
const WRITTEN = WRITTEN_COLUMNS.map(() => '?');

export function sqliteStatements(db: Database) {
  const prepare = (sql: string): Statement => db.prepare(sql);
  return {
    ping: prepare('SELECT 1'),
    get: prepare('SELECT record FROM payouts WHERE merchant_id = ? AND reference_id = ?'),
    getRow: prepare('SELECT revision, record FROM payouts WHERE merchant_id = ? AND reference_id = ?'),
    // Values: the keys, created_at, then the written columns in WRITTEN_COLUMNS order.
    insert: prepare(`${insertPayoutSql(['?', '?'], '?', WRITTEN)} ON CONFLICT (merchant_id, reference_id) DO NOTHING`),
    // Values: the written columns in WRITTEN_COLUMNS order, the keys, the revision the row must be at,
    // and the record text it must still hold (null: any).
    update: prepare(`UPDATE payouts SET ${updatePayoutSet(WRITTEN)}
      WHERE merchant_id = ? AND reference_id = ? AND revision = ? AND record = coalesce(?, record)`),
    enqueueRelay: prepare(ENQUEUE),
    remove: prepare('DELETE FROM payouts WHERE merchant_id = ? AND reference_id = ? AND revision = ?'),
    appendChange: prepare('INSERT INTO payout_changes (merchant_id, position, at, record) VALUES (?, ?, ?, ?)'),
    reserve:
      prepare(`INSERT INTO daily_reservations (merchant_id, day, currency, actor_id, minor) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (merchant_id, day, currency, actor_id) DO UPDATE SET minor = minor + excluded.minor`),
    dropEmptyReservations: prepare(
      'DELETE FROM daily_reservations WHERE merchant_id = ? AND day = ? AND currency = ? AND minor <= 0',
    ),
    appendAudit: prepare(`INSERT INTO audit_log (merchant_id, sequence, at, actor, action, reference_id, status, amount,
      currency, detail, hash, previous_hash, mac, entry_id, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    headRow: prepare('SELECT change_position, audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = ?'),
    setHead: prepare(`INSERT INTO merchant_heads (merchant_id, change_position, audit_sequence, audit_hash)
      VALUES (?, ?, ?, ?) ON CONFLICT (merchant_id) DO UPDATE SET change_position = excluded.change_position,
      audit_sequence = excluded.audit_sequence, audit_hash = excluded.audit_hash`),
    addCheckpoint: prepare(`INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature, key_id)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (merchant_id, sequence) DO NOTHING`),
    pruneChanges: prepare(
      'DELETE FROM payout_changes WHERE rowid IN (SELECT rowid FROM payout_changes WHERE at < ? LIMIT 1000)',
    ),
    finalBefore: prepare(FINAL_BEFORE),
  };
}

export type SqliteStatements = ReturnType<typeof sqliteStatements>;
