import type { Database } from 'better-sqlite3';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from '../disbursements/reconciliation.model';
import { discrepancyOf, DiscrepancyRow, runColumns } from './reconciliation.row';

/** Reconciliation runs in the embedded file: one process, each step one synchronous statement or transaction. */
export class SqliteReconciliations implements ReconciliationStore {
  private readonly q;

  constructor(private readonly db: Database) {
    this.q = {
      running: db.prepare("SELECT run FROM reconciliation_runs WHERE merchant_id = ? AND state = 'RUNNING'"),
      insert: db.prepare(`INSERT INTO reconciliation_runs (id, merchant_id, window_from, window_to, state, started_at,
        total, checked, run) VALUES (@id, @merchant_id, @window_from, @window_to, @state, @started_at, @total, @checked, @run)`),
      get: db.prepare('SELECT run FROM reconciliation_runs WHERE merchant_id = ? AND id = ?'),
      lease: db.prepare(`UPDATE reconciliation_runs SET lease_until = ? WHERE id = (SELECT id FROM reconciliation_runs
        WHERE state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= ?) ORDER BY started_at LIMIT 1) RETURNING run`),
      save: db.prepare(`UPDATE reconciliation_runs SET state = @state, finished_at = @finished_at, checked = @checked,
        run = @run, lease_until = NULL WHERE id = @id`),
      found: db.prepare(`INSERT INTO reconciliation_discrepancies (run_id, reference_id, kind, gateway_status,
        provider_status, resolved) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
      lastDone: db.prepare(
        "SELECT run FROM reconciliation_runs WHERE merchant_id = ? AND state = 'DONE' ORDER BY started_at DESC LIMIT 1",
      ),
      discrepancies: db.prepare(
        'SELECT * FROM reconciliation_discrepancies WHERE run_id = ? ORDER BY reference_id, kind',
      ),
    };
  }

  async create(run: ReconciliationRun): Promise<ReconciliationRun | undefined> {
    return this.db
      .transaction(() => {
        const running = this.q.running.get(run.merchantId) as { run: string } | undefined;
        if (running) return JSON.parse(running.run) as ReconciliationRun;
        this.q.insert.run(runColumns(run));
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
        const { id, state, finished_at, checked, run: json } = runColumns(run);
        this.q.save.run({ id, state, finished_at, checked, run: json });
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
