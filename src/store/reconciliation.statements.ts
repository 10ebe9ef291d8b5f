import type { runColumns } from './reconciliation.row';

/*
 * Reconciliation run statements, each written once with `?` placeholders: SQLite uses them as they
 * are, PostgreSQL numbers them when its module loads (sql.dialect.ts). Where the engines differ,
 * the two texts stand side by side, sharing what they can.
 */

export const RUNNING = "SELECT run FROM reconciliation_runs WHERE merchant_id = ? AND state = 'RUNNING'";
export const GET = 'SELECT run FROM reconciliation_runs WHERE merchant_id = ? AND id = ?';
export const LAST_DONE =
  "SELECT run FROM reconciliation_runs WHERE merchant_id = ? AND state = 'DONE' ORDER BY started_at DESC LIMIT 1";
export const DISCREPANCIES = 'SELECT * FROM reconciliation_discrepancies WHERE run_id = ? ORDER BY reference_id, kind';

const INSERT_RUN = `INSERT INTO reconciliation_runs (id, merchant_id, window_from, window_to, state, started_at, total,
  checked, run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * A new run. SQLite looks for a running one in the insert's transaction; PostgreSQL replicas race,
 * and the partial unique index on RUNNING runs turns the loser's insert into nothing.
 */
export const CREATE = { sqlite: INSERT_RUN, postgres: `${INSERT_RUN} ON CONFLICT DO NOTHING` };

/** CREATE's parameters, in its columns' order. */
export function createValues(c: ReturnType<typeof runColumns>) {
  return [c.id, c.merchant_id, c.window_from, c.window_to, c.state, c.started_at, c.total, c.checked, c.run];
}

/**
 * Leases the earliest running run no one holds (parameters: until, now). PostgreSQL replicas lease
 * at once, so it skips a run another replica is taking; SQLite, one writer, has no row locks.
 */
const leaseRun = (lock: string) => `UPDATE reconciliation_runs SET lease_until = ? WHERE id = (
  SELECT id FROM reconciliation_runs WHERE state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= ?)
  ORDER BY started_at LIMIT 1${lock}
) RETURNING run`;
export const LEASE = { sqlite: leaseRun(''), postgres: leaseRun(' FOR UPDATE SKIP LOCKED') };

/** A run's progress, its lease let go (parameters: state, finished_at, checked, run, id). */
const SAVE_RUN =
  'UPDATE reconciliation_runs SET state = ?, finished_at = ?, checked = ?, run = ?, lease_until = NULL WHERE id = ?';
const INSERT_DISCREPANCY =
  'INSERT INTO reconciliation_discrepancies (run_id, reference_id, kind, gateway_status, provider_status, resolved)';

/**
 * Saving a run with the discrepancies it found. SQLite inserts them one by one in the save's
 * transaction; PostgreSQL in the save's one statement, from a JSON array (parameters: run id, the
 * array, then SAVE_RUN's), so a save is one round trip.
 */
export const SAVE = {
  sqlite: { found: `${INSERT_DISCREPANCY} VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, run: SAVE_RUN },
  postgres: `WITH found AS (
  ${INSERT_DISCREPANCY}
  SELECT ?, d.reference_id, d.kind, d.gateway_status, d.provider_status, d.resolved
  FROM json_to_recordset(?::json) AS d(reference_id text, kind text, gateway_status text, provider_status text, resolved int)
  ON CONFLICT DO NOTHING
)
${SAVE_RUN}`,
};
