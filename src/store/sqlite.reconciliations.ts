import { SqliteFile } from '../database/sqlite.open';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from '../disbursements/reconciliation.model';
import { discrepancyOf, DiscrepancyRow, runColumns } from './reconciliation.row';
import { CREATE, createValues, DISCREPANCIES, GET, LAST_DONE, LEASE, RUNNING, SAVE } from './reconciliation.statements';

/** Reconciliation runs in the embedded file: one process, each write one synchronous step in the file's group commit. */
export class SqliteReconciliations implements ReconciliationStore {
  private readonly q;
  private readonly writes: SqliteFile['writes'];

  constructor({ db, writes }: SqliteFile) {
    this.writes = writes;
    this.q = {
      running: db.prepare(RUNNING),
      insert: db.prepare(CREATE.sqlite),
      get: db.prepare(GET),
      lease: db.prepare(LEASE.sqlite),
      save: db.prepare(SAVE.sqlite.run),
      found: db.prepare(SAVE.sqlite.found),
      lastDone: db.prepare(LAST_DONE),
      discrepancies: db.prepare(DISCREPANCIES),
    };
  }

  async create(run: ReconciliationRun): Promise<ReconciliationRun | undefined> {
    return this.writes.write(() => {
      const running = this.q.running.get(run.merchantId) as { run: string } | undefined;
      if (running) return JSON.parse(running.run) as ReconciliationRun;
      this.q.insert.run(createValues(runColumns(run)));
      return undefined;
    });
  }

  async get(merchantId: string, id: string): Promise<ReconciliationRun | undefined> {
    const row = this.q.get.get(merchantId, id) as { run: string } | undefined;
    return row && (JSON.parse(row.run) as ReconciliationRun);
  }

  async lease(now: number, until: number): Promise<ReconciliationRun | undefined> {
    return this.writes.write(() => {
      const row = this.q.lease.get(until, now) as { run: string } | undefined;
      return row && (JSON.parse(row.run) as ReconciliationRun);
    });
  }

  async save(run: ReconciliationRun, found: readonly Discrepancy[]): Promise<void> {
    return this.writes.write(() => {
      for (const d of found)
        this.q.found.run(run.id, d.referenceId, d.kind, d.gatewayStatus, d.providerStatus, d.resolved ? 1 : 0);
      const c = runColumns(run);
      this.q.save.run(c.state, c.finished_at, c.checked, c.run, c.id);
    });
  }

  async lastDone(merchantId: string): Promise<ReconciliationRun | undefined> {
    const row = this.q.lastDone.get(merchantId) as { run: string } | undefined;
    return row && (JSON.parse(row.run) as ReconciliationRun);
  }

  async discrepancies(runId: string): Promise<Discrepancy[]> {
    return (this.q.discrepancies.all(runId) as DiscrepancyRow[]).map(discrepancyOf);
  }
}
