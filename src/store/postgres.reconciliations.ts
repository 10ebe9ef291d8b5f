import type { Pool } from 'pg';
import { pgQuery } from '../database/postgres.query';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from '../disbursements/reconciliation.model';
import { discrepancyOf, DiscrepancyRow } from './reconciliation.row';
import {
  createRun,
  discrepancies,
  getRun,
  lastDone,
  leaseRun,
  running,
  saveRunWithFound,
} from './reconciliation.statements';

type RunRow = { run: string };

/**
 * Reconciliation runs shared by replicas: a partial unique index keeps one RUNNING run per
 * merchant, and a lease takes a run no replica holds, skipping rows another is taking right now.
 */
export class PostgresReconciliations implements ReconciliationStore {
  constructor(private readonly pool: Pool) {}

  async create(run: ReconciliationRun): Promise<ReconciliationRun | undefined> {
    const inserted = await pgQuery(this.pool, createRun('postgres', run));
    if (inserted.rowCount === 1) return undefined;
    const { rows } = await pgQuery<RunRow>(this.pool, running(run.merchantId));
    // The one running finished in between: try again.
    return rows[0] ? (JSON.parse(rows[0].run) as ReconciliationRun) : this.create(run);
  }

  async get(merchantId: string, id: string): Promise<ReconciliationRun | undefined> {
    const { rows } = await pgQuery<RunRow>(this.pool, getRun(merchantId, id));
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async lease(now: number, until: number): Promise<ReconciliationRun | undefined> {
    const { rows } = await pgQuery<RunRow>(this.pool, leaseRun('postgres', now, until));
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async save(run: ReconciliationRun, found: readonly Discrepancy[]): Promise<void> {
    await pgQuery(this.pool, saveRunWithFound(run, found));
  }

  async lastDone(merchantId: string): Promise<ReconciliationRun | undefined> {
    const { rows } = await pgQuery<RunRow>(this.pool, lastDone(merchantId));
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async discrepancies(runId: string): Promise<Discrepancy[]> {
    const { rows } = await pgQuery<DiscrepancyRow>(this.pool, discrepancies(runId));
    return rows.map(discrepancyOf);
  }
}
