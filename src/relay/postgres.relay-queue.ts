import type { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
import { pgQuery } from '../database/postgres.query';
import { RelayJob } from '../disbursements/relay.job';
import { chooseDue, LeasedRelayJob, LeaseFairness, RelayQueue } from './relay.queue';
import { due, finish, retry, takeChosen } from './relay-queue.statements';

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

  async lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]> {
    const { rows } = await pgQuery<Row>(this.pool, due(now.getTime(), limit));
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
    const taken = await pgQuery<{ merchant_id: string; reference_id: string; lease: string }>(
      this.pool,
      takeChosen(
        { merchantIds: chosen.map((j) => j.merchant_id), referenceIds: chosen.map((j) => j.reference_id) },
        now.getTime(),
        randomUUID(),
        leaseUntil.getTime(),
      ),
    );
    const leases = new Map(taken.rows.map((r) => [`${r.merchant_id}\u0000${r.reference_id}`, r.lease]));
    return chosen.flatMap((row) => {
      const lease = leases.get(`${row.merchant_id}\u0000${row.reference_id}`);
      return lease ? [{ ...(JSON.parse(row.job) as RelayJob), attempts: row.attempts, lease }] : [];
    });
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    await pgQuery(this.pool, retry(job, at.getTime()));
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    await pgQuery(this.pool, finish(job));
  }

  async close(): Promise<void> {}
}
