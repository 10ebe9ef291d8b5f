import { SqliteFile } from '../database/sqlite.open';
import { SqliteRunner, sqliteRunner } from '../database/sqlite.prepared';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from '../disbursements/reconciliation.model';
import { discrepancyOf, DiscrepancyRow } from './reconciliation.row';
import {
  createRun,
  discrepancies,
  getRun,
  lastDone,
  leaseRun,
  running,
  saveDiscrepancy,
  saveRun,
} from './reconciliation.statements';

type RunRow = { run: string };

/** Reconciliation runs in the embedded file: one process, each write one synchronous step in the file's group commit. */
export class SqliteReconciliations implements ReconciliationStore {
  private readonly q: SqliteRunner;
  private readonly writes: SqliteFile['writes'];

  constructor({ db, writes }: SqliteFile) {
    this.writes = writes;
    this.q = sqliteRunner(db);
  }

  async create(run: ReconciliationRun): Promise<ReconciliationRun | undefined> {
    return this.writes.write(() => {
      const found = this.q.get<RunRow>(running(run.merchantId));
      if (found) return JSON.parse(found.run) as ReconciliationRun;
      this.q.run(createRun('sqlite', run));
      return undefined;
    });
  }

  async get(merchantId: string, id: string): Promise<ReconciliationRun | undefined> {
    const row = this.q.get<RunRow>(getRun(merchantId, id));
    return row && (JSON.parse(row.run) as ReconciliationRun);
  }

  async lease(now: number, until: number): Promise<ReconciliationRun | undefined> {
    return this.writes.write(() => {
      const row = this.q.get<RunRow>(leaseRun('sqlite', now, until));
      return row && (JSON.parse(row.run) as ReconciliationRun);
    });
  }

  async save(run: ReconciliationRun, found: readonly Discrepancy[]): Promise<void> {
    return this.writes.write(() => {
      for (const d of found) this.q.run(saveDiscrepancy(run.id, d));
      this.q.run(saveRun(run));
    });
  }

  async lastDone(merchantId: string): Promise<ReconciliationRun | undefined> {
    const row = this.q.get<RunRow>(lastDone(merchantId));
    return row && (JSON.parse(row.run) as ReconciliationRun);
  }

  async discrepancies(runId: string): Promise<Discrepancy[]> {
    return this.q.all<DiscrepancyRow>(discrepancies(runId)).map(discrepancyOf);
  }
}
