import type { Pool } from 'pg';

/**
 * One bounded batch of what retention lets go: changes older than EVENT_RETENTION_SECONDS, client
 * quotas that ended an hour ago, and (when RECORD_RETENTION_SECONDS is set) final records not
 * written for that long. Returns how many changes and records went.
 */
export async function pruneBatch(
  pool: Pool,
  now: number,
  eventRetentionMs: number,
  retentionMs: number,
): Promise<number> {
  const changes = await pool.query(
    `DELETE FROM payout_changes WHERE (merchant_id, position) IN
       (SELECT merchant_id, position FROM payout_changes WHERE at < $1 LIMIT 1000)`,
    [now - eventRetentionMs],
  );
  await pool.query('DELETE FROM client_quotas WHERE expire < $1', [now - 3600_000]);
  let removed = changes.rowCount ?? 0;
  if (retentionMs > 0) {
    const finals = await pool.query(
      `DELETE FROM payouts WHERE (merchant_id, reference_id) IN
         (SELECT merchant_id, reference_id FROM payouts WHERE final = 1 AND written_at < $1 LIMIT 1000)`,
      [now - retentionMs],
    );
    removed += finals.rowCount ?? 0;
  }
  return removed;
}
