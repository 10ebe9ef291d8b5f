import { Dialect, raw, Sql, sql } from '../database/sql.dialect';
import { Discrepancy, ReconciliationRun } from '../disbursements/reconciliation.model';
import { runColumns } from './reconciliation.row';

/*
 * Reconciliation run statements, each written once with its values (sql.dialect.ts) and compiled for
 * the engine that runs it. Where the engines differ, a statement takes the engine, or each has its own.
 */

export const running = (merchantId: string) =>
  sql`SELECT run FROM reconciliation_runs WHERE merchant_id = ${merchantId} AND state = 'RUNNING'`;
export const getRun = (merchantId: string, id: string) =>
  sql`SELECT run FROM reconciliation_runs WHERE merchant_id = ${merchantId} AND id = ${id}`;
export const lastDone = (merchantId: string) =>
  sql`SELECT run FROM reconciliation_runs WHERE merchant_id = ${merchantId} AND state = 'DONE' ORDER BY started_at DESC LIMIT 1`;
export const discrepancies = (runId: string) =>
  sql`SELECT * FROM reconciliation_discrepancies WHERE run_id = ${runId} ORDER BY reference_id, kind`;

/**
 * A new run. SQLite looks for a running one in the insert's transaction; PostgreSQL replicas race,
 * and the partial unique index on RUNNING runs turns the loser's insert into nothing.
 */
const LOSER_INSERTS_NOTHING: Readonly<Record<Dialect, string>> = { sqlite: '', postgres: ' ON CONFLICT DO NOTHING' };

export function createRun(engine: Dialect, run: ReconciliationRun): Sql {
  const c = runColumns(run);
  return sql`INSERT INTO reconciliation_runs (id, merchant_id, window_from, window_to, state, started_at, total,
  checked, run) VALUES (${c.id}, ${c.merchant_id}, ${c.window_from}, ${c.window_to}, ${c.state}, ${c.started_at},
  ${c.total}, ${c.checked}, ${c.run})${raw(LOSER_INSERTS_NOTHING[engine])}`;
}

/**
 * Leases the earliest running run no one holds until `until`. PostgreSQL replicas lease at once, so
 * it skips a run another replica is taking; SQLite, one writer, has no row locks.
 */
const SKIP_TAKEN: Readonly<Record<Dialect, string>> = { sqlite: '', postgres: ' FOR UPDATE SKIP LOCKED' };

export const leaseRun = (engine: Dialect, now: number, until: number) =>
  sql`UPDATE reconciliation_runs SET lease_until = ${until} WHERE id = (
  SELECT id FROM reconciliation_runs WHERE state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= ${now})
  ORDER BY started_at LIMIT 1${raw(SKIP_TAKEN[engine])}
) RETURNING run`;

/** A run's progress, its lease let go. */
export function saveRun(run: ReconciliationRun): Sql {
  const c = runColumns(run);
  return sql`UPDATE reconciliation_runs SET state = ${c.state}, finished_at = ${c.finished_at}, checked = ${c.checked},
  run = ${c.run}, lease_until = NULL WHERE id = ${c.id}`;
}

const INSERT_DISCREPANCY = raw(
  'INSERT INTO reconciliation_discrepancies (run_id, reference_id, kind, gateway_status, provider_status, resolved)',
);

/** SQLite saves a run's discrepancies one by one in the save's transaction, then the run (saveRun). */
export const saveDiscrepancy = (runId: string, d: Discrepancy) =>
  sql`${INSERT_DISCREPANCY} VALUES (${runId}, ${d.referenceId}, ${d.kind}, ${d.gatewayStatus}, ${d.providerStatus},
  ${d.resolved ? 1 : 0}) ON CONFLICT DO NOTHING`;

/** PostgreSQL saves the run and its discrepancies in one statement, from a JSON array, so a save is one round trip. */
export function saveRunWithFound(run: ReconciliationRun, found: readonly Discrepancy[]): Sql {
  const rows = found.map((d) => ({
    reference_id: d.referenceId,
    kind: d.kind,
    gateway_status: d.gatewayStatus,
    provider_status: d.providerStatus,
    resolved: d.resolved ? 1 : 0,
  }));
  return sql`WITH found AS (
  ${INSERT_DISCREPANCY}
  SELECT ${run.id}, d.reference_id, d.kind, d.gateway_status, d.provider_status, d.resolved
  FROM json_to_recordset(${JSON.stringify(rows)}::json) AS d(reference_id text, kind text, gateway_status text, provider_status text, resolved int)
  ON CONFLICT DO NOTHING
)
${saveRun(run)}`;
}
