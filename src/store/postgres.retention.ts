import type { Pool } from 'pg';
import { numbered } from '../database/sql.dialect';
import { FINAL_BEFORE } from './shared.statements';

const FINALS = numbered(FINAL_BEFORE);

/**
 * One bounded batch of what retention lets go: changes older than EVENT_RETENTION_SECONDS and client
 * quotas that ended an hour ago, removed here; and (when RECORD_RETENTION_SECONDS is set) final
 * records not written for that long, found here for the store to remove one audited write each.
 * Returns how many changes went, and those records.
 */
export async function pruneBatch(
  pool: Pool,
  now: number,
  eventRetentionMs: number,
  retentionMs: number,
): Promise<{ removed: number; finals: { merchantId: string; referenceId: string }[] }> {
  const changes = await pool.query(
    `DELETE FROM payout_changes WHERE (merchant_id, position) IN
       (SELECT merchant_id, position FROM payout_changes WHERE at < $1 LIMIT 1000)`,
    [now - eventRetentionMs],
  );
  await pool.query('DELETE FROM client_quotas WHERE expire < $1', [now - 3600_000]);
  const removed = changes.rowCount ?? 0;
  if (retentionMs <= 0) return { removed, finals: [] };
  const { rows } = await pool.query<{ merchant_id: string; reference_id: string }>(FINALS, [now - retentionMs]);
  return { removed, finals: rows.map((row) => ({ merchantId: row.merchant_id, referenceId: row.reference_id })) };
}
