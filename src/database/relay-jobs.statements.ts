import { Sql, sql } from './sql.dialect';

/**
 * The one insert of a relay job, written once for both engines and every caller: for each row of
 * `payouts` (its merchant_id and reference_id), a job due at `dueAt` whose JSON is `job`; a job
 * already queued for the payout stays as it is. A store's write that makes a payout final inserts
 * from the row it wrote, in the same transaction (the embedded store from its values). SQLite
 * needs the WHERE: an INSERT ... SELECT with an upsert clause must have one. The three are
 * fragments, so a caller says whether each is a value or text of its own (a CTE's name, a column).
 */
export function enqueueRelayJob(payouts: Sql, dueAt: Sql, job: Sql): Sql {
  return sql`INSERT INTO relay_jobs (merchant_id, reference_id, due_at, attempts, job)
  SELECT merchant_id, reference_id, ${dueAt}, 0, ${job} FROM ${payouts} WHERE true ON CONFLICT DO NOTHING`;
}

/** A payout's job from its values: due at `dueAt` (ms), `job` its JSON. */
export function enqueueOne(dueAt: number, job: string, merchantId: string, referenceId: string): Sql {
  const payout = sql`(SELECT ${merchantId} AS merchant_id, ${referenceId} AS reference_id) AS payout`;
  return enqueueRelayJob(payout, sql`${dueAt}`, sql`${job}`);
}
