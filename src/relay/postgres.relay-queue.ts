import type { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
import { chooseDue, LeasedRelayJob, LeaseFairness, RelayJob, RelayQueue } from './relay.queue';

interface Row {
  merchant_id: string;
  reference_id: string;
  due_at: string;
  attempts: number;
  job: string;
}

/**
 * Relay work in PostgreSQL, shared by every replica. A lease reads each merchant's earliest due
 * jobs, chooses fairly among them, and takes the chosen ones that are still due in one statement,
 * skipping any row another replica is taking at that moment (FOR UPDATE SKIP LOCKED): a job is
 * held by one replica at a time, and a replica that died lets its jobs come due again at the
 * lease's end.
 */
export class PostgresRelayQueue implements RelayQueue {
  constructor(private readonly pool: Pool) {}

  async enqueue(job: RelayJob, at: Date): Promise<void> {
    await this.pool.query(
      `INSERT INTO relay_jobs (merchant_id, reference_id, due_at, attempts, job) VALUES ($1, $2, $3, 0, $4)
       ON CONFLICT DO NOTHING`,
      [job.merchantId, job.referenceId, at.getTime(), JSON.stringify(job)],
    );
  }

  async lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT merchant_id, reference_id, due_at, attempts, job FROM (
         SELECT *, row_number() OVER (PARTITION BY merchant_id ORDER BY due_at) AS place FROM relay_jobs WHERE due_at <= $1
       ) AS due WHERE place <= $2`,
      [now.getTime(), limit],
    );
    const chosen = chooseDue(
      rows.map((row) => ({
        ...row,
        merchantId: row.merchant_id,
        referenceId: row.reference_id,
        dueAt: Number(row.due_at),
      })),
      limit,
      fairness,
    );
    if (chosen.length === 0) return [];
    const token = randomUUID();
    const taken = await this.pool.query<{ merchant_id: string; reference_id: string; lease: string }>(
      `WITH chosen AS (
         SELECT c.m, c.r, c.place FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(m, r, place)
       ), free AS (
         SELECT j.merchant_id, j.reference_id, chosen.place FROM relay_jobs j
         JOIN chosen ON j.merchant_id = chosen.m AND j.reference_id = chosen.r
         WHERE j.due_at <= $3 FOR UPDATE OF j SKIP LOCKED
       )
       UPDATE relay_jobs SET lease = $4 || ':' || free.place, due_at = $5 FROM free
       WHERE relay_jobs.merchant_id = free.merchant_id AND relay_jobs.reference_id = free.reference_id
       RETURNING relay_jobs.merchant_id, relay_jobs.reference_id, relay_jobs.lease`,
      [chosen.map((j) => j.merchant_id), chosen.map((j) => j.reference_id), now.getTime(), token, leaseUntil.getTime()],
    );
    const leases = new Map(taken.rows.map((r) => [`${r.merchant_id}\u0000${r.reference_id}`, r.lease]));
    return chosen.flatMap((row) => {
      const lease = leases.get(`${row.merchant_id}\u0000${row.reference_id}`);
      return lease ? [{ ...(JSON.parse(row.job) as RelayJob), attempts: row.attempts, lease }] : [];
    });
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    await this.pool.query(
      `UPDATE relay_jobs SET attempts = $1, due_at = $2, lease = NULL
       WHERE merchant_id = $3 AND reference_id = $4 AND lease = $5`,
      [job.attempts + 1, at.getTime(), job.merchantId, job.referenceId, job.lease],
    );
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    await this.pool.query('DELETE FROM relay_jobs WHERE merchant_id = $1 AND reference_id = $2 AND lease = $3', [
      job.merchantId,
      job.referenceId,
      job.lease,
    ]);
  }

  async close(): Promise<void> {}
}
