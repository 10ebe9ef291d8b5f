/*
 * Reads of payouts, the change log, the chain heads and the checkpoints that both stores make, each written
 * once with `?` placeholders: SQLite uses them as they are, PostgreSQL numbers them when its module
 * loads (sql.dialect.ts).
 */

export const CHANGES_AFTER =
  'SELECT position, record FROM payout_changes WHERE merchant_id = ? AND position > ? ORDER BY position LIMIT ?';

export const HAS_CHANGE = 'SELECT 1 FROM payout_changes WHERE merchant_id = ? AND position = ? AND at >= ?';

export const CHANGE_HEAD = 'SELECT change_position FROM merchant_heads WHERE merchant_id = ?';

/** The merchant's audit head as its head row records it (sequence 0: no entry yet). */
export const AUDIT_HEAD = 'SELECT audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = ?';

export const LATEST_CHECKPOINTS =
  'SELECT * FROM audit_checkpoints WHERE merchant_id = ? ORDER BY sequence DESC LIMIT ?';

export const GET_RECORD = 'SELECT record FROM payouts WHERE merchant_id = ? AND reference_id = ?';

/** Chain heads past their merchant's last signed checkpoint. */
export const UNSIGNED_HEADS = `SELECT merchant_id, audit_sequence, audit_hash FROM merchant_heads h
  WHERE audit_sequence > coalesce((SELECT max(sequence) FROM audit_checkpoints c WHERE c.merchant_id = h.merchant_id), 0)
  ORDER BY merchant_id`;

/** A batch of final payouts not written since a time: what RECORD_RETENTION_SECONDS removes, one audited removal each. */
export const FINAL_BEFORE =
  'SELECT merchant_id, reference_id FROM payouts WHERE final = 1 AND written_at < ? ORDER BY written_at LIMIT 1000';

export const SCHEDULED_WAITING = `SELECT count(*) AS count, min(due_at) AS earliest FROM payouts
  WHERE due_at IS NOT NULL AND status = 'SCHEDULED'`;

/** A keyset page of payouts created in [?, ?), after (created_at, reference_id). */
export const CREATED_BETWEEN = `SELECT created_at, reference_id, record FROM payouts
  WHERE merchant_id = ? AND created_at >= ? AND created_at < ? AND (created_at, reference_id) > (?, ?)
  ORDER BY created_at, reference_id LIMIT ?`;

/** A keyset page of payouts written since ?, after (created_at, reference_id). */
export const WRITTEN_SINCE = `SELECT created_at, reference_id, record FROM payouts
  WHERE merchant_id = ? AND written_at >= ? AND (created_at, reference_id) > (?, ?)
  ORDER BY created_at, reference_id LIMIT ?`;

/** An audit page under a condition built by the caller, with its LIMIT placeholder. */
export const auditPageSql = (where: string, limit: string) =>
  `SELECT * FROM audit_log WHERE ${where} ORDER BY sequence LIMIT ${limit}`;

/** How many payouts a history filter matches (PostgreSQL answers a BIGINT as text: read it with Number). */
export const historyCountSql = (where: string) => `SELECT count(*) AS count FROM payouts WHERE ${where}`;
