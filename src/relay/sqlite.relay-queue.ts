import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { chooseDue, LeasedRelayJob, LeaseFairness, RelayJob, RelayQueue } from './relay.queue';

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
      enqueue: db.prepare(
        'INSERT INTO relay_jobs (merchant_id, reference_id, due_at, attempts, job) VALUES (?, ?, ?, 0, ?) ON CONFLICT DO NOTHING',
      ),
      // Up to `limit` due jobs of each merchant, earliest first: enough for any choice the lease makes.
      due: db.prepare(`SELECT merchant_id, reference_id, due_at, attempts, job FROM (
        SELECT *, row_number() OVER (PARTITION BY merchant_id ORDER BY due_at) AS place FROM relay_jobs WHERE due_at <= ?
      ) WHERE place <= ?`),
      take: db.prepare('UPDATE relay_jobs SET lease = ?, due_at = ? WHERE merchant_id = ? AND reference_id = ?'),
      retry: db.prepare(
        'UPDATE relay_jobs SET attempts = ?, due_at = ?, lease = NULL WHERE merchant_id = ? AND reference_id = ? AND lease = ?',
      ),
      finish: db.prepare('DELETE FROM relay_jobs WHERE merchant_id = ? AND reference_id = ? AND lease = ?'),
    };
  }

  async enqueue(job: RelayJob, at: Date): Promise<void> {
    this.q.enqueue.run(job.merchantId, job.referenceId, at.getTime(), JSON.stringify(job));
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
