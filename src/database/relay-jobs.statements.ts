/**
 * The one insert of a relay job, written once for both engines and every caller: for each row of
 * `payouts` (its merchant_id and reference_id), a job due at `dueAt` whose JSON is `job`; a job
 * already queued for the payout stays as it is. A store's write that makes a payout final inserts
 * from the row it wrote, in the same transaction (the embedded store from its values). SQLite
 * needs the WHERE: an INSERT ... SELECT with an upsert clause must have one.
 */
export function enqueueRelayJob(payouts: string, dueAt: string, job: string): string {
  return `INSERT INTO relay_jobs (merchant_id, reference_id, due_at, attempts, job)
  SELECT merchant_id, reference_id, ${dueAt}, 0, ${job} FROM ${payouts} WHERE true ON CONFLICT DO NOTHING`;
}

/** A job from its values, in the order the text has them: due at (ms), the job's JSON, merchant id, reference id. */
export const ENQUEUE = enqueueRelayJob('(SELECT ? AS merchant_id, ? AS reference_id) AS payout', '?', '?');
