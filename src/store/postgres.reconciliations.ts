import type { Pool } from 'pg';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from '../disbursements/reconciliation.model';
import { numbered } from '../database/sql.dialect';
import { discrepancyOf, DiscrepancyRow, runColumns } from './reconciliation.row';
import { CREATE, createValues, DISCREPANCIES, GET, LAST_DONE, LEASE, RUNNING, SAVE } from './reconciliation.statements';

const Q = {
  create: numbered(CREATE.postgres),
  running: numbered(RUNNING),
  get: numbered(GET),
  lease: numbered(LEASE.postgres),
  save: numbered(SAVE.postgres),
  lastDone: numbered(LAST_DONE),
  discrepancies: numbered(DISCREPANCIES),
};

/**
 * Reconciliation runs shared by replicas: a partial unique index keeps one RUNNING run per
 * merchant, and a lease takes a run no replica holds, skipping rows another is taking right now.
 */
export class PostgresReconciliations implements ReconciliationStore {
  constructor(private readonly pool: Pool) {}

  async create(run: ReconciliationRun): Promise<ReconciliationRun | undefined> {
    const inserted = await this.pool.query(Q.create, createValues(runColumns(run)));
    if (inserted.rowCount === 1) return undefined;
    const { rows } = await this.pool.query<{ run: string }>(Q.running, [run.merchantId]);
    // The one running finished in between: try again.
    return rows[0] ? (JSON.parse(rows[0].run) as ReconciliationRun) : this.create(run);
  }

  async get(merchantId: string, id: string): Promise<ReconciliationRun | undefined> {
    const { rows } = await this.pool.query<{ run: string }>(Q.get, [merchantId, id]);
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async lease(now: number, until: number): Promise<ReconciliationRun | undefined> {
    const { rows } = await this.pool.query<{ run: string }>(Q.lease, [until, now]);
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async save(run: ReconciliationRun, found: readonly Discrepancy[]): Promise<void> {
    const c = runColumns(run);
    const discrepancies = found.map((d) => ({
      reference_id: d.referenceId,
      kind: d.kind,
      gateway_status: d.gatewayStatus,
      provider_status: d.providerStatus,
      resolved: d.resolved ? 1 : 0,
    }));
    // The run id twice: once for its discrepancies, once for the run itself.
    await this.pool.query(Q.save, [
      c.id,
      JSON.stringify(discrepancies),
      c.state,
      c.finished_at,
      c.checked,
      c.run,
      c.id,
    ]);
  }

  async lastDone(merchantId: string): Promise<ReconciliationRun | undefined> {
    const { rows } = await this.pool.query<{ run: string }>(Q.lastDone, [merchantId]);
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async discrepancies(runId: string): Promise<Discrepancy[]> {
    const { rows } = await this.pool.query<DiscrepancyRow>(Q.discrepancies, [runId]);
    return rows.map(discrepancyOf);
  }
}
