/*
 * Reads of the change log, the chain heads and the checkpoints that both stores make, each written
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
