/*
 * The relay queue's statements, each written once with `?` placeholders: SQLite uses them as they
 * are, PostgreSQL numbers them when its module loads (sql.dialect.ts). Its insert, which the stores
 * share, is in database/relay-jobs.statements.ts.
 */

/** Up to `limit` due jobs of each merchant, earliest first: enough for any choice a lease makes. */
export const DUE = `SELECT merchant_id, reference_id, due_at, attempts, job FROM (
  SELECT *, row_number() OVER (PARTITION BY merchant_id ORDER BY due_at) AS place FROM relay_jobs WHERE due_at <= ?
) AS due WHERE place <= ?`;

/*
 * Taking the chosen jobs is where the engines differ. SQLite has one writer: it takes them one by
 * one inside the lease's transaction. PostgreSQL replicas lease at once: one statement takes the
 * chosen jobs still due, skipping rows another replica is taking (FOR UPDATE SKIP LOCKED, which
 * SQLite lacks), and returns the ones it got.
 */
export const TAKE_ONE = 'UPDATE relay_jobs SET lease = ?, due_at = ? WHERE merchant_id = ? AND reference_id = ?';
export const TAKE_CHOSEN = `WITH chosen AS (
  SELECT c.m, c.r, c.place FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS c(m, r, place)
), free AS (
  SELECT j.merchant_id, j.reference_id, chosen.place FROM relay_jobs j
  JOIN chosen ON j.merchant_id = chosen.m AND j.reference_id = chosen.r
  WHERE j.due_at <= ? FOR UPDATE OF j SKIP LOCKED
)
UPDATE relay_jobs SET lease = ? || ':' || free.place, due_at = ? FROM free
WHERE relay_jobs.merchant_id = free.merchant_id AND relay_jobs.reference_id = free.reference_id
RETURNING relay_jobs.merchant_id, relay_jobs.reference_id, relay_jobs.lease`;

export const RETRY =
  'UPDATE relay_jobs SET attempts = ?, due_at = ?, lease = NULL WHERE merchant_id = ? AND reference_id = ? AND lease = ?';

export const FINISH = 'DELETE FROM relay_jobs WHERE merchant_id = ? AND reference_id = ? AND lease = ?';
