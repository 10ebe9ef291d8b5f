import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { RelayJob } from '../disbursements/relay.job';
import { chooseDue, LeasedRelayJob, LeaseFairness, RelayQueue } from './relay.queue';
import { ENQUEUE } from '../database/relay-jobs.statements';
import { DUE, FINISH, RETRY, TAKE_ONE } from './relay-queue.statements';

interface Row {
  merchant_id: string;
  reference_id: string;
  due_at: number;
  attempts: number;
  job: string;
}

/** Relay work in the embedded file: one process, so each step is one synchronous transaction. */
export class SqliteRelayQueue implements RelayQueue {
  private readonly q;

  constructor(private readonly db: Database) {
    this.q = {
      enqueue: db.prepare(ENQUEUE),
      due: db.prepare(DUE),
      take: db.prepare(TAKE_ONE),
      retry: db.prepare(RETRY),
      finish: db.prepare(FINISH),
    };
  }

  async enqueue(job: RelayJob, at: Date): Promise<void> {
    this.q.enqueue.run(at.getTime(), JSON.stringify(job), job.merchantId, job.referenceId);
  }

  async lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]> {
    return this.db
      .transaction(() => {
        const rows = (this.q.due.all(now.getTime(), limit) as Row[]).map((row) => ({
          ...row,
          merchantId: row.merchant_id,
          referenceId: row.reference_id,
          dueAt: row.due_at,
        }));
        const token = randomUUID();
        return chooseDue(rows, limit, fairness).map((row, i) => {
          const lease = `${token}:${i + 1}`;
          this.q.take.run(lease, leaseUntil.getTime(), row.merchant_id, row.reference_id);
          return { ...(JSON.parse(row.job) as RelayJob), attempts: row.attempts, lease };
        });
      })
      .immediate();
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    this.q.retry.run(job.attempts + 1, at.getTime(), job.merchantId, job.referenceId, job.lease);
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    this.q.finish.run(job.merchantId, job.referenceId, job.lease);
  }

  async close(): Promise<void> {}
}
