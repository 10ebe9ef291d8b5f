import type { Pool } from 'pg';
import { pgQuery } from '../database/postgres.query';
import { sql } from '../database/sql.dialect';
import { finalBefore } from './retention.statements';

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
  const changes = await pgQuery(
    pool,
    sql`DELETE FROM payout_changes WHERE (merchant_id, position) IN
       (SELECT merchant_id, position FROM payout_changes WHERE at < ${now - eventRetentionMs} LIMIT 1000)`,
  );
  await pgQuery(pool, sql`DELETE FROM client_quotas WHERE expire < ${now - 3600_000}`);
  const removed = changes.rowCount ?? 0;
  if (retentionMs <= 0) return { removed, finals: [] };
  const { rows } = await pgQuery<{ merchant_id: string; reference_id: string }>(pool, finalBefore(now - retentionMs));
  return { removed, finals: rows.map((row) => ({ merchantId: row.merchant_id, referenceId: row.reference_id })) };
}
