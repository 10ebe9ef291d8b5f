import type { Database } from 'better-sqlite3';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from '../disbursements/reconciliation.model';
import { discrepancyOf, DiscrepancyRow, runColumns } from './reconciliation.row';
import { CREATE, createValues, DISCREPANCIES, GET, LAST_DONE, LEASE, RUNNING, SAVE } from './reconciliation.statements';

/** Reconciliation runs in the embedded file: one process, each step one synchronous statement or transaction. */
export class SqliteReconciliations implements ReconciliationStore {
  private readonly q;

  constructor(private readonly db: Database) {
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
    return this.db
      .transaction(() => {
        const running = this.q.running.get(run.merchantId) as { run: string } | undefined;
        if (running) return JSON.parse(running.run) as ReconciliationRun;
        this.q.insert.run(createValues(runColumns(run)));
        return undefined;
      })
      .immediate();
  }

  async get(merchantId: string, id: string): Promise<ReconciliationRun | undefined> {
    const row = this.q.get.get(merchantId, id) as { run: string } | undefined;
    return row && (JSON.parse(row.run) as ReconciliationRun);
  }

  async lease(now: number, until: number): Promise<ReconciliationRun | undefined> {
    const row = this.q.lease.get(until, now) as { run: string } | undefined;
    return row && (JSON.parse(row.run) as ReconciliationRun);
  }

  async save(run: ReconciliationRun, found: readonly Discrepancy[]): Promise<void> {
    this.db
      .transaction(() => {
        for (const d of found)
          this.q.found.run(run.id, d.referenceId, d.kind, d.gatewayStatus, d.providerStatus, d.resolved ? 1 : 0);
        const c = runColumns(run);
        this.q.save.run(c.state, c.finished_at, c.checked, c.run, c.id);
      })
      .immediate();
  }

  async lastDone(merchantId: string): Promise<ReconciliationRun | undefined> {
    const row = this.q.lastDone.get(merchantId) as { run: string } | undefined;
    return row && (JSON.parse(row.run) as ReconciliationRun);
  }

  async discrepancies(runId: string): Promise<Discrepancy[]> {
    return (this.q.discrepancies.all(runId) as DiscrepancyRow[]).map(discrepancyOf);
  }
}
