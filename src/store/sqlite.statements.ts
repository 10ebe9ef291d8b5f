import type { Database, Statement } from 'better-sqlite3';
import {
  AUDIT_HEAD,
  CHANGE_HEAD,
  CHANGES_AFTER,
  CREATED_BETWEEN,
  GET_RECORD,
  HAS_CHANGE,
  FINAL_BEFORE,
  LATEST_CHECKPOINTS,
  SCHEDULED_WAITING,
  UNSIGNED_HEADS,
  WRITTEN_SINCE,
} from './shared.statements';
import { ENQUEUE } from '../database/relay-jobs.statements';
import { insertPayoutSql, updatePayoutSet, WRITTEN_COLUMNS } from './payout.row';

// The embedded store's statements, prepared once when the store opens.

/** A `?` for each written column. */
const WRITTEN = WRITTEN_COLUMNS.map(() => '?');

export function sqliteStatements(db: Database) {
  const prepare = (sql: string): Statement => db.prepare(sql);
  return {
    ping: prepare('SELECT 1'),
    get: prepare(GET_RECORD),
    getRow: prepare('SELECT revision, record FROM payouts WHERE merchant_id = ? AND reference_id = ?'),
    getMany: prepare(
      'SELECT reference_id, record FROM payouts WHERE merchant_id = ? AND reference_id IN (SELECT value FROM json_each(?))',
    ),
    // Values: the keys, created_at, then the written columns in WRITTEN_COLUMNS order.
    insert: prepare(`${insertPayoutSql(['?', '?'], '?', WRITTEN)} ON CONFLICT (merchant_id, reference_id) DO NOTHING`),
    // Values: the written columns in WRITTEN_COLUMNS order, the keys, the revision the row must be at,
    // and the record text it must still hold (null: any).
    update: prepare(`UPDATE payouts SET ${updatePayoutSet(WRITTEN)}
      WHERE merchant_id = ? AND reference_id = ? AND revision = ? AND record = coalesce(?, record)`),
    enqueueRelay: prepare(ENQUEUE),
    remove: prepare('DELETE FROM payouts WHERE merchant_id = ? AND reference_id = ? AND revision = ?'),
    due: prepare(
      `SELECT record FROM payouts WHERE due_at IS NOT NULL AND due_at <= @now
        AND (leased_until IS NULL OR leased_until <= @now) ORDER BY due_at LIMIT @limit`,
    ),
    scheduledWaiting: prepare(SCHEDULED_WAITING),
    appendChange: prepare('INSERT INTO payout_changes (merchant_id, position, at, record) VALUES (?, ?, ?, ?)'),
    changesAfter: prepare(CHANGES_AFTER),
    hasChange: prepare(HAS_CHANGE),
    head: prepare(CHANGE_HEAD),
    reserved: prepare(
      'SELECT minor FROM daily_reservations WHERE merchant_id = ? AND day = ? AND currency = ? AND actor_id = ?',
    ),
    reserve:
      prepare(`INSERT INTO daily_reservations (merchant_id, day, currency, actor_id, minor) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (merchant_id, day, currency, actor_id) DO UPDATE SET minor = minor + excluded.minor`),
    dropEmptyReservations: prepare(
      'DELETE FROM daily_reservations WHERE merchant_id = ? AND day = ? AND currency = ? AND minor <= 0',
    ),
    auditHead: prepare(AUDIT_HEAD),
    appendAudit: prepare(`INSERT INTO audit_log (merchant_id, sequence, at, actor, action, reference_id, status, amount,
      currency, detail, hash, previous_hash, mac, entry_id, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    headRow: prepare('SELECT change_position, audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = ?'),
    setHead: prepare(`INSERT INTO merchant_heads (merchant_id, change_position, audit_sequence, audit_hash)
      VALUES (?, ?, ?, ?) ON CONFLICT (merchant_id) DO UPDATE SET change_position = excluded.change_position,
      audit_sequence = excluded.audit_sequence, audit_hash = excluded.audit_hash`),
    unsignedHeads: prepare(UNSIGNED_HEADS),
    addCheckpoint: prepare(`INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature, key_id)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (merchant_id, sequence) DO NOTHING`),
    latestCheckpoints: prepare(LATEST_CHECKPOINTS),
    // A statement sums its window a slice at a time: where the slice after (?, ?) ends, then the sums
    // of the rows in (after, end], whose created_at lie in [?, ?] (the range SQLite seeks the index on).
    statementSliceEnd: prepare(`SELECT created_at, reference_id FROM payouts
      WHERE merchant_id = ? AND created_at >= ? AND created_at < ? AND (created_at, reference_id) > (?, ?)
      ORDER BY created_at, reference_id LIMIT 1 OFFSET ?`),
    statementSlice: prepare(`SELECT currency, status, count(*) AS count, sum(amount_minor) AS minor FROM payouts
      WHERE merchant_id = ? AND created_at BETWEEN ? AND ? AND (created_at, reference_id) > (?, ?)
      AND (created_at, reference_id) <= (?, ?) GROUP BY currency, status`),
    createdBetween: prepare(CREATED_BETWEEN),
    writtenSince: prepare(WRITTEN_SINCE),
    pruneChanges: prepare(
      'DELETE FROM payout_changes WHERE rowid IN (SELECT rowid FROM payout_changes WHERE at < ? LIMIT 1000)',
    ),
    finalBefore: prepare(FINAL_BEFORE),
  };
}

export type SqliteStatements = ReturnType<typeof sqliteStatements>;
