import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Pool } from 'pg';
import { pgQuery } from './postgres.query';
import { sql } from './sql.dialect';
import { sqliteRunner } from './sqlite.prepared';

/*
 * The moments the database went back in time (a restore, a failover to a standby that lacked the last
 * writes, an older copy of the embedded file): payouts sent before such a moment may be missing from
 * it, so for a while every create of a referenceId it does not know asks the provider first
 * (src/disbursements/create.rewind.ts). One statement each, for both engines.
 */

const LATEST = sql`SELECT max(at) AS at FROM history_rewinds`;
const record = (at: number, reason: string) => sql`INSERT INTO history_rewinds (at, reason) VALUES (${at}, ${reason})`;
const fact = (name: string) => sql`SELECT value FROM database_facts WHERE name = ${name}`;
const setFact = (name: string, value: string) =>
  sql`INSERT INTO database_facts (name, value) VALUES (${name}, ${value}) ON CONFLICT (name) DO UPDATE SET value = ${value}`;
const dropFact = (name: string) => sql`DELETE FROM database_facts WHERE name = ${name}`;

/** Fact names: the database's own id (made by the migration), and on a copy made by db:backup, when. */
export const DATABASE_ID = 'database_id';
export const BACKUP_TAKEN_AT = 'backup_taken_at';

export interface SqliteFacts {
  latestRewind(): number | undefined;
  recordRewind(at: number, reason: string): void;
  fact(name: string): string | undefined;
  setFact(name: string, value: string): void;
  dropFact(name: string): void;
}

export function sqliteFacts(db: SqliteDatabase): SqliteFacts {
  const q = sqliteRunner(db);
  return {
    latestRewind: () => q.get<{ at: number | null }>(LATEST)?.at ?? undefined,
    recordRewind: (at, reason) => void q.run(record(at, reason)),
    fact: (name) => q.get<{ value: string }>(fact(name))?.value,
    setFact: (name, value) => void q.run(setFact(name, value)),
    dropFact: (name) => void q.run(dropFact(name)),
  };
}

/** The latest rewind of a PostgreSQL database, in ms. */
export async function postgresLatestRewind(pool: Pool): Promise<number | undefined> {
  const { rows } = await pgQuery<{ at: string | null }>(pool, LATEST);
  return rows[0]?.at === null || rows[0]?.at === undefined ? undefined : Number(rows[0].at);
}

/** Records that a PostgreSQL database went back in time (`npm run db:restored`). */
export async function postgresRecordRewind(pool: Pool, at: number, reason: string): Promise<void> {
  await pgQuery(pool, record(at, reason));
}
