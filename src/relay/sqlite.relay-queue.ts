import { randomUUID } from 'node:crypto';
import { RelayJob } from '../disbursements/relay.job';
import { SqliteFile } from '../database/sqlite.open';
import { SqliteRunner, sqliteRunner } from '../database/sqlite.prepared';
import { chooseDue, LeasedRelayJob, LeaseFairness, RelayQueue } from './relay.queue';
import { due, finish, retry, takeOne } from './relay-queue.statements';

interface Row {
  merchant_id: string;
  reference_id: string;
  due_at: number;
  attempts: number;
  job: string;
}

/** Relay work in the embedded file: one process, so each step is one synchronous write in the file's group commit. */
export class SqliteRelayQueue implements RelayQueue {
  private readonly q: SqliteRunner;
  private readonly writes: SqliteFile['writes'];

  constructor({ db, writes }: SqliteFile) {
    this.writes = writes;
    this.q = sqliteRunner(db);
  }

  async lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]> {
    return this.writes.write(() => {
      const rows = this.q.all<Row>(due(now.getTime(), limit)).map((row) => ({
        ...row,
        merchantId: row.merchant_id,
        referenceId: row.reference_id,
        dueAt: row.due_at,
      }));
      const token = randomUUID();
      return chooseDue(rows, limit, fairness).map((row, i) => {
        const lease = `${token}:${i + 1}`;
        this.q.run(takeOne(lease, leaseUntil.getTime(), row.merchant_id, row.reference_id));
        return { ...(JSON.parse(row.job) as RelayJob), attempts: row.attempts, lease };
      });
    });
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    return this.writes.write(() => {
      this.q.run(retry(job, at.getTime()));
    });
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    return this.writes.write(() => {
      this.q.run(finish(job));
    });
  }

  async close(): Promise<void> {}
}
