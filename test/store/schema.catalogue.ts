import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresPool } from '../../src/database/postgres.open';
import { POSTGRES_SCHEMA } from '../../src/database/postgres.migrations';
import { DECLARED_TABLES, TableShape } from '../../src/database/schema.declared';
import { EngineSchema, Migration } from '../../src/database/schema.engine';
import { migratePostgres, migrateSqlite } from '../../src/database/schema.migrate';
import { SQLITE_SCHEMA } from '../../src/database/sqlite.migrations';
import { freshDatabase, withClient } from '../support/postgres';

/** A schema as compared: tables by name with their named indexes sorted, triggers as `table.name`, functions sorted. */
export interface Catalogue {
  tables: TableShape[];
  triggers: string[];
  functions: string[];
}

const sorted = (names: Iterable<string>) => [...names].sort();
/** Shapes only: what the gateway's role may do is compared by the grants test (database.roles.test.ts). */
const byName = (tables: readonly TableShape[]) =>
  tables
    .map(({ name, columns, primaryKey, indexes }) => ({ name, columns, primaryKey, indexes: sorted(indexes) }))
    .sort((a, b) => a.name.localeCompare(b.name));

function declaredOn(engine: EngineSchema): Catalogue {
  return {
    tables: byName([...DECLARED_TABLES, ...engine.tables]),
    triggers: sorted(engine.triggers.map((t) => `${t.table}.${t.name}`)),
    functions: sorted(engine.functions),
  };
}

/** The schema migrations make on a new embedded file, read from sqlite_master and the table pragmas. */
function builtOnSqlite(migrations?: readonly Migration[]): Catalogue {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-'));
  const db = new Database(join(dir, 'gateway.sqlite'));
  try {
    migrateSqlite(db, migrations);
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all() as string[];
    const tables = names.map((name) => {
      const columns = db.pragma(`table_info(${name})`) as { name: string; pk: number }[];
      const indexes = db.pragma(`index_list(${name})`) as { name: string; origin: string }[];
      return {
        name,
        columns: columns.map((c) => c.name),
        primaryKey: columns
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        // 'c': made by CREATE INDEX; the others back a PRIMARY KEY or UNIQUE constraint.
        indexes: indexes.filter((i) => i.origin === 'c').map((i) => i.name),
      };
    });
    const triggers = db
      .prepare("SELECT tbl_name || '.' || name FROM sqlite_master WHERE type = 'trigger'")
      .pluck()
      .all() as string[];
    return { tables: byName(tables), triggers: sorted(triggers), functions: [] };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The schema migrations make on a new PostgreSQL database, read from information_schema and the catalogues. */
async function builtOnPostgres(migrations?: readonly Migration[]): Promise<Catalogue> {
  const database = await freshDatabase();
  const pool = postgresPool(database.url);
  try {
    await migratePostgres(pool, migrations);
    return await withClient(database.url, async (client) => {
      const names = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
      );
      // One query at a time: a client runs its queries in turn.
      const tables: TableShape[] = [];
      for (const { name } of names.rows) {
        const columns = await client.query<{ name: string }>(
          `SELECT column_name AS name FROM information_schema.columns
             WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
          [name],
        );
        const key = await client.query<{ name: string }>(
          `SELECT k.column_name AS name FROM information_schema.table_constraints c
             JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
             WHERE c.table_schema = 'public' AND c.table_name = $1 AND c.constraint_type = 'PRIMARY KEY'
             ORDER BY k.ordinal_position`,
          [name],
        );
        const indexes = await client.query<{ name: string }>(
          `SELECT indexname AS name FROM pg_indexes i WHERE schemaname = 'public' AND tablename = $1
             AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype = 'p')`,
          [name],
        );
        tables.push({
          name,
          columns: columns.rows.map((r) => r.name),
          primaryKey: key.rows.map((r) => r.name),
          indexes: indexes.rows.map((r) => r.name),
        });
      }
      const triggers = await client.query<{ name: string }>(
        `SELECT c.relname || '.' || t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal`,
      );
      const functions = await client.query<{ name: string }>(
        `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'`,
      );
      return {
        tables: byName(tables),
        triggers: sorted(triggers.rows.map((r) => r.name)),
        functions: sorted(functions.rows.map((r) => r.name)),
      };
    });
  } finally {
    await pool.end();
    await database.drop();
  }
}

/** Each engine's declared and built schema, by the name its test registry entry (test/support/*.engine.ts) gives. */
export const CATALOGUES: Record<
  string,
  { declared: Catalogue; built(migrations?: readonly Migration[]): Promise<Catalogue> }
> = {
  SQLite: { declared: declaredOn(SQLITE_SCHEMA), built: async (migrations) => builtOnSqlite(migrations) },
  PostgreSQL: { declared: declaredOn(POSTGRES_SCHEMA), built: builtOnPostgres },
};
