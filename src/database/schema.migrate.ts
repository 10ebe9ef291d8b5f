import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Pool } from 'pg';
import { gatewayGrants } from './postgres.grants';
import { POSTGRES_SCHEMA } from './postgres.migrations';
import { pgQuery } from './postgres.query';
import { Migration, migrationText } from './schema.engine';
import { MIGRATIONS } from './schema.migrations';
import { sql } from './sql.dialect';
import { SQLITE_SCHEMA } from './sqlite.migrations';
import { sqliteRunner } from './sqlite.prepared';

/** The database holds a schema newer than this build knows: running on it could corrupt records. */
export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `the database's schema is version ${found}, newer than this gateway knows (${known}): run a gateway at least as new as the one that migrated it`,
    );
    this.name = 'SchemaTooNewError';
  }
}

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

const APPLIED = sql`SELECT max(version) AS v FROM schema_migrations`;
const recordApplied = (m: Migration, at: number) =>
  sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, ${at})`;

/** One key for the advisory lock that makes replicas starting together migrate one after another. */
const MIGRATION_LOCK = 7_301_944_112;

function pending(applied: number, migrations: readonly Migration[]): readonly Migration[] {
  const known = migrations.at(-1)?.version ?? 0;
  if (applied > known) throw new SchemaTooNewError(applied, known);
  return migrations.filter((m) => m.version > applied);
}

/** Applies what is missing, in one transaction; returns the versions applied. */
export function migrateSqlite(db: SqliteDatabase, migrations: readonly Migration[] = MIGRATIONS): number[] {
  return db
    .transaction(() => {
      db.exec(LEDGER);
      const q = sqliteRunner(db);
      const todo = pending(q.get<{ v: number | null }>(APPLIED)?.v ?? 0, migrations);
      for (const m of todo) {
        db.exec(migrationText(m, SQLITE_SCHEMA));
        q.run(recordApplied(m, Date.now()));
      }
      return todo.map((m) => m.version);
    })
    .immediate();
}

/**
 * Applies what is missing, in one transaction under an advisory lock: of replicas starting
 * together, one migrates and the others find nothing left to do. `grantTo` (the gateway's role,
 * when another role migrates) is granted its rights under the same lock, since GRANTs racing on
 * one table fail with "tuple concurrently updated".
 */
export async function migratePostgres(
  pool: Pool,
  migrations: readonly Migration[] = MIGRATIONS,
  grantTo?: string,
): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await pgQuery(client, sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query(LEDGER);
    const { rows } = await pgQuery<{ v: number | null }>(client, APPLIED);
    const todo = pending(rows[0].v ?? 0, migrations);
    for (const m of todo) {
      await client.query(migrationText(m, POSTGRES_SCHEMA));
      await pgQuery(client, recordApplied(m, Date.now()));
    }
    if (grantTo !== undefined) await client.query(gatewayGrants(grantTo));
    await client.query('COMMIT');
    return todo.map((m) => m.version);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
