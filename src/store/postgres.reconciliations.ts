import type { Pool } from 'pg';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from '../disbursements/reconciliation.model';
import { discrepancyOf, DiscrepancyRow, runColumns } from './reconciliation.row';

/**
 * Reconciliation runs shared by replicas: a partial unique index keeps one RUNNING run per
 * merchant, and a lease takes a run no replica holds, skipping rows another is taking right now.
 */
export class PostgresReconciliations implements ReconciliationStore {
  constructor(private readonly pool: Pool) {}

  async create(run: ReconciliationRun): Promise<ReconciliationRun | undefined> {
    const c = runColumns(run);
    const inserted = await this.pool.query(
      `INSERT INTO reconciliation_runs (id, merchant_id, window_from, window_to, state, started_at, total, checked, run)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [c.id, c.merchant_id, c.window_from, c.window_to, c.state, c.started_at, c.total, c.checked, c.run],
    );
    if (inserted.rowCount === 1) return undefined;
    const { rows } = await this.pool.query<{ run: string }>(
      "SELECT run FROM reconciliation_runs WHERE merchant_id = $1 AND state = 'RUNNING'",
      [run.merchantId],
    );
    // The one running finished in between: try again.
    return rows[0] ? (JSON.parse(rows[0].run) as ReconciliationRun) : this.create(run);
  }

  async get(merchantId: string, id: string): Promise<ReconciliationRun | undefined> {
    const { rows } = await this.pool.query<{ run: string }>(
      'SELECT run FROM reconciliation_runs WHERE merchant_id = $1 AND id = $2',
      [merchantId, id],
    );
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async lease(now: number, until: number): Promise<ReconciliationRun | undefined> {
    const { rows } = await this.pool.query<{ run: string }>(
      `UPDATE reconciliation_runs SET lease_until = $2 WHERE id = (
         SELECT id FROM reconciliation_runs WHERE state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= $1)
         ORDER BY started_at LIMIT 1 FOR UPDATE SKIP LOCKED
       ) RETURNING run`,
      [now, until],
    );
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async save(run: ReconciliationRun, found: readonly Discrepancy[]): Promise<void> {
    const c = runColumns(run);
    await this.pool.query(
      `WITH found AS (
         INSERT INTO reconciliation_discrepancies (run_id, reference_id, kind, gateway_status, provider_status, resolved)
         SELECT $1, d.reference_id, d.kind, d.gateway_status, d.provider_status, d.resolved
         FROM json_to_recordset($6::json) AS d(reference_id text, kind text, gateway_status text, provider_status text,
           resolved int)
         ON CONFLICT DO NOTHING
       )
       UPDATE reconciliation_runs SET state = $2, finished_at = $3, checked = $4, run = $5, lease_until = NULL
       WHERE id = $1`,
      [
        c.id,
        c.state,
        c.finished_at,
        c.checked,
        c.run,
        JSON.stringify(
          found.map((d) => ({
            reference_id: d.referenceId,
            kind: d.kind,
            gateway_status: d.gatewayStatus,
            provider_status: d.providerStatus,
            resolved: d.resolved ? 1 : 0,
          })),
        ),
      ],
    );
  }

  async lastDone(merchantId: string): Promise<ReconciliationRun | undefined> {
    const { rows } = await this.pool.query<{ run: string }>(
      "SELECT run FROM reconciliation_runs WHERE merchant_id = $1 AND state = 'DONE' ORDER BY started_at DESC LIMIT 1",
      [merchantId],
    );
    return rows[0] && (JSON.parse(rows[0].run) as ReconciliationRun);
  }

  async discrepancies(runId: string): Promise<Discrepancy[]> {
    const { rows } = await this.pool.query<DiscrepancyRow>(
      'SELECT * FROM reconciliation_discrepancies WHERE run_id = $1 ORDER BY reference_id, kind',
      [runId],
    );
    return rows.map(discrepancyOf);
  }
}
