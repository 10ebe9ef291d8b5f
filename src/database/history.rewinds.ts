import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Pool } from 'pg';
import { numbered } from './sql.dialect';

/*
 * The moments the database went back in time (a restore, a failover to a standby that lacked the last
 * writes, an older copy of the embedded file): payouts sent before such a moment may be missing from
 * it, so for a while every create of a referenceId it does not know asks the provider first
 * (src/disbursements/create.rewind.ts). One text per statement, for both engines.
 */

const LATEST = 'SELECT max(at) AS at FROM history_rewinds';
const RECORD = 'INSERT INTO history_rewinds (at, reason) VALUES (?, ?)';
const FACT = 'SELECT value FROM database_facts WHERE name = ?';
const SET_FACT = 'INSERT INTO database_facts (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = ?';
const DROP_FACT = 'DELETE FROM database_facts WHERE name = ?';
const RECORD_PG = numbered(RECORD);

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
  const latest = db.prepare(LATEST);
  const record = db.prepare(RECORD);
  const fact = db.prepare(FACT);
  const setFact = db.prepare(SET_FACT);
  const dropFact = db.prepare(DROP_FACT);
  return {
    latestRewind: () => (latest.get() as { at: number | null }).at ?? undefined,
    recordRewind: (at, reason) => void record.run(at, reason),
    fact: (name) => (fact.get(name) as { value: string } | undefined)?.value,
    setFact: (name, value) => void setFact.run(name, value, value),
    dropFact: (name) => void dropFact.run(name),
  };
}

/** The latest rewind of a PostgreSQL database, in ms. */
export async function postgresLatestRewind(pool: Pool): Promise<number | undefined> {
  const { rows } = await pool.query<{ at: string | null }>(LATEST);
  return rows[0]?.at === null || rows[0]?.at === undefined ? undefined : Number(rows[0].at);
}

/** Records that a PostgreSQL database went back in time (`npm run db:restored`). */
export async function postgresRecordRewind(pool: Pool, at: number, reason: string): Promise<void> {
  await pool.query(RECORD_PG, [at, reason]);
}
