import { POSTGRES_NOW_MS } from '../database/postgres.migrations';
import { Dialect, raw, Sql, sql } from '../database/sql.dialect';
import { Bucket } from './budget.bucket';

/*
 * Provider budget statements, each written once with its values (sql.dialect.ts) and compiled for
 * the engine that runs it. Where the engines differ, a statement takes the clock it runs on.
 */

/**
 * Whose clock counts: SQLite is passed the process's (`ms`); PostgreSQL reads the server's, so
 * replicas with drifting clocks share one bucket.
 */
export type Clock = { engine: 'sqlite'; ms: number } | { engine: 'postgres' };
export const POSTGRES_CLOCK: Clock = { engine: 'postgres' };

/** The clock's now, as each engine reads it (exhaustive: a new engine does not compile until it says). */
function now(clock: Clock): Sql {
  switch (clock.engine) {
    case 'sqlite':
      return sql`${clock.ms}`;
    case 'postgres':
      return raw(POSTGRES_NOW_MS);
  }
}

/** The larger of two values: SQLite's scalar max() is PostgreSQL's greatest(). */
const LARGER: Record<Dialect, Sql> = { sqlite: raw('max'), postgres: raw('greatest') };

/** SQLite counts a bucket in the process: it reads the row, then writes what is left. */
export const getBucket = (key: string) =>
  sql`SELECT tokens, read_tokens, counted_at, paused_until FROM provider_budgets WHERE key = ${key}`;

export interface BucketRow {
  tokens: number | null;
  read_tokens: number | null;
  counted_at: number;
  paused_until: number;
}

export const putBucket = (key: string, b: Bucket) =>
  sql`INSERT INTO provider_budgets (key, tokens, read_tokens, counted_at, paused_until)
  VALUES (${key}, ${b.all ?? null}, ${b.reads ?? null}, ${b.at}, ${b.pausedUntil})
  ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, read_tokens = excluded.read_tokens,
  counted_at = excluded.counted_at, paused_until = excluded.paused_until`;

/** PostgreSQL counts it in `provider_budget_take` (postgres.migrations.ts), which locks the row while it counts. */
export const take = (key: string, perMinute: number, read: boolean) =>
  sql`SELECT taken, wait_ms, paused FROM provider_budget_take(${key}, ${perMinute}, ${read})`;

/**
 * Two takes in one round trip: the second (in the CASE, which PostgreSQL evaluates only when the
 * first was taken) runs after the first and sees what it left.
 */
export const takePair = (key: string, perMinute: number) => sql`SELECT f.taken, f.wait_ms, f.paused,
  CASE WHEN f.taken THEN (SELECT s.taken FROM provider_budget_take(${key}, ${perMinute}, false) s) ELSE false END AS second
  FROM provider_budget_take(${key}, ${perMinute}, false) f`;

/** A pause never shortens one already longer. */
export const pause = (clock: Clock, key: string, ms: number) =>
  sql`INSERT INTO provider_budgets (key, counted_at, paused_until) VALUES (${key}, ${now(clock)}, ${now(clock)} + ${ms})
  ON CONFLICT (key) DO UPDATE SET paused_until = ${LARGER[clock.engine]}(provider_budgets.paused_until, excluded.paused_until)`;

/** Writes a claim unless one that has not ended holds the key. */
export const claim = (clock: Clock, key: string, ms: number) =>
  sql`INSERT INTO provider_claims AS c (key, until_at) VALUES (${key}, ${now(clock)} + ${ms})
  ON CONFLICT (key) DO UPDATE SET until_at = excluded.until_at WHERE c.until_at <= ${now(clock)}`;

export const sweep = (clock: Clock) => sql`DELETE FROM provider_claims WHERE until_at <= ${now(clock)}`;
