import { sql } from '../database/sql.dialect';
import { LeasedRelayJob } from './relay.queue';

/*
 * The relay queue's statements, each written once with its values (sql.dialect.ts) and compiled for
 * the engine that runs it. Its insert, which the stores share, is in database/relay-jobs.statements.ts.
 */

/** Up to `limit` due jobs of each merchant, earliest first: enough for any choice a lease makes. */
export const due = (now: number, limit: number) => sql`SELECT merchant_id, reference_id, due_at, attempts, job FROM (
  SELECT *, row_number() OVER (PARTITION BY merchant_id ORDER BY due_at) AS place FROM relay_jobs WHERE due_at <= ${now}
) AS due WHERE place <= ${limit}`;

/*
 * Taking the chosen jobs is where the engines differ. SQLite has one writer: it takes them one by
 * one inside the lease's transaction. PostgreSQL replicas lease at once: one statement takes the
 * chosen jobs still due, skipping rows another replica is taking (FOR UPDATE SKIP LOCKED, which
 * SQLite lacks), and returns the ones it got, each leased as `token:place`.
 */
export const takeOne = (lease: string, until: number, merchantId: string, referenceId: string) =>
  sql`UPDATE relay_jobs SET lease = ${lease}, due_at = ${until} WHERE merchant_id = ${merchantId} AND reference_id = ${referenceId}`;

export interface Chosen {
  merchantIds: string[];
  referenceIds: string[];
}

export const takeChosen = (chosen: Chosen, now: number, token: string, until: number) => sql`WITH chosen AS (
  SELECT c.m, c.r, c.place FROM unnest(${chosen.merchantIds}::text[], ${chosen.referenceIds}::text[]) WITH ORDINALITY AS c(m, r, place)
), free AS (
  SELECT j.merchant_id, j.reference_id, chosen.place FROM relay_jobs j
  JOIN chosen ON j.merchant_id = chosen.m AND j.reference_id = chosen.r
  WHERE j.due_at <= ${now} FOR UPDATE OF j SKIP LOCKED
)
UPDATE relay_jobs SET lease = ${token} || ':' || free.place, due_at = ${until} FROM free
WHERE relay_jobs.merchant_id = free.merchant_id AND relay_jobs.reference_id = free.reference_id
RETURNING relay_jobs.merchant_id, relay_jobs.reference_id, relay_jobs.lease`;

/** Records one more attempt and makes the job due again at `at`, if its lease still holds it. */
export const retry = (job: LeasedRelayJob, at: number) =>
  sql`UPDATE relay_jobs SET attempts = ${job.attempts + 1}, due_at = ${at}, lease = NULL
  WHERE merchant_id = ${job.merchantId} AND reference_id = ${job.referenceId} AND lease = ${job.lease}`;

/** Removes the job, if its lease still holds it. */
export const finish = (job: LeasedRelayJob) =>
  sql`DELETE FROM relay_jobs WHERE merchant_id = ${job.merchantId} AND reference_id = ${job.referenceId} AND lease = ${job.lease}`;
