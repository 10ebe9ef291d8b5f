import { POSTGRES_NOW_MS } from '../database/postgres.migrations';

/*
 * Provider budget statements, each written once with `?` placeholders: SQLite uses them as they
 * are, PostgreSQL numbers them when its module loads (sql.dialect.ts). Where the engines differ,
 * a statement is a function of the engine.
 */

type Engine = 'sqlite' | 'postgres';

/**
 * Whose clock counts: SQLite is passed the process's; PostgreSQL reads the server's, so replicas
 * with drifting clocks share one bucket.
 */
const NOW: Record<Engine, string> = { sqlite: '?', postgres: POSTGRES_NOW_MS };

/** The larger of two values: SQLite's scalar max() is PostgreSQL's greatest(). */
const LARGER: Record<Engine, string> = { sqlite: 'max', postgres: 'greatest' };

/** SQLite counts a bucket in the process: it reads the row, then writes what is left. */
export const BUCKET = 'SELECT tokens, read_tokens, counted_at, paused_until FROM provider_budgets WHERE key = ?';
export const PUT_BUCKET = `INSERT INTO provider_budgets (key, tokens, read_tokens, counted_at, paused_until) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, read_tokens = excluded.read_tokens,
  counted_at = excluded.counted_at, paused_until = excluded.paused_until`;

/** PostgreSQL counts it in `provider_budget_take` (postgres.migrations.ts), which locks the row while it counts. */
export const TAKE = 'SELECT taken, wait_ms, paused FROM provider_budget_take(?, ?, ?)';

/**
 * Two takes in one round trip: the second (in the CASE, which PostgreSQL evaluates only when the
 * first was taken) runs after the first and sees what it left.
 */
export const TAKE_PAIR = `SELECT f.taken, f.wait_ms, f.paused,
  CASE WHEN f.taken THEN (SELECT s.taken FROM provider_budget_take(?, ?, false) s) ELSE false END AS second
  FROM provider_budget_take(?, ?, false) f`;

/** A pause never shortens one already longer. */
export const pause = (engine: Engine) =>
  `INSERT INTO provider_budgets (key, counted_at, paused_until) VALUES (?, ${NOW[engine]}, ${NOW[engine]} + ?)
  ON CONFLICT (key) DO UPDATE SET paused_until = ${LARGER[engine]}(provider_budgets.paused_until, excluded.paused_until)`;

/** Writes a claim unless one that has not ended holds the key. */
export const claim = (engine: Engine) =>
  `INSERT INTO provider_claims AS c (key, until_at) VALUES (?, ${NOW[engine]} + ?)
  ON CONFLICT (key) DO UPDATE SET until_at = excluded.until_at WHERE c.until_at <= ${NOW[engine]}`;

export const sweep = (engine: Engine) => `DELETE FROM provider_claims WHERE until_at <= ${NOW[engine]}`;
