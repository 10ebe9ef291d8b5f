import type { Pool } from 'pg';
import { pgQuery } from '../database/postgres.query';
import { sql } from '../database/sql.dialect';
import { finalBefore, spentCounters } from './retention.statements';

/**
 * One bounded batch of what retention lets go at `now`: changes older than `eventBefore`, client quotas
 * that ended an hour ago and the day's counters spent (retention.statements.ts), removed here; and (with `before`, RECORD_RETENTION_SECONDS set) final records not
 * written since then, found here for the store to remove one audited write each.
 */
export async function pruneBatch(
  pool: Pool,
  now: number,
  eventBefore: number,
  before: number | undefined,
): Promise<{ removed: number; finals: { merchantId: string; referenceId: string }[] }> {
  const changes = await pgQuery(
    pool,
    sql`DELETE FROM payout_changes WHERE (merchant_id, position) IN
       (SELECT merchant_id, position FROM payout_changes WHERE at < ${eventBefore} LIMIT 1000)`,
  );
  await pgQuery(pool, sql`DELETE FROM client_quotas WHERE expire < ${now - 3600_000}`);
  const counters = await pgQuery(pool, spentCounters(now));
  const removed = (changes.rowCount ?? 0) + (counters.rowCount ?? 0);
  if (before === undefined) return { removed, finals: [] };
  const { rows } = await pgQuery<{ merchant_id: string; reference_id: string }>(pool, finalBefore(before));
  return { removed, finals: rows.map((row) => ({ merchantId: row.merchant_id, referenceId: row.reference_id })) };
}
