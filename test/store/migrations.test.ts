import Database from 'better-sqlite3';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { openPostgres, postgresPool } from '../../src/database/postgres.open';
import { migratePostgres, migrateSqlite, SchemaTooNewError } from '../../src/database/schema.migrate';
import { MIGRATIONS } from '../../src/database/schema.migrations';
import { Migration } from '../../src/database/schema.engine';
import { openSqlite } from '../../src/database/sqlite.open';
import { databasePerTest, describeEngines, POSTGRES, SQLITE } from '../support/engines';
import { freshDatabase, withClient } from '../support/postgres';
import { CATALOGUES } from './schema.catalogue';

const KNOWN = MIGRATIONS.at(-1)!.version;
const ALL = MIGRATIONS.map((m) => m.version);
const FROM_THE_FUTURE = `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${KNOWN + 1}, 'a newer gateway', 0)`;

describeEngines('schema migrations', (engine) => {
  const db = databasePerTest(engine);

  it('applies nothing to a database already migrated', async () => {
    expect(await db().migrate()).toEqual([]);
    expect(await db().migrate()).toEqual([]);
  });

  it('refuses a database whose schema is newer than this build knows', async () => {
    await db().exec(FROM_THE_FUTURE);
    const refusal = db().migrate();
    await expect(refusal).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(refusal).rejects.toThrow(`version ${KNOWN + 1}, newer than this gateway knows (${KNOWN})`);
  });
});

describeEngines('the schema migrations build', (engine) => {
  const catalogue = CATALOGUES[engine.name];

  it('is the declared one: its tables, columns, primary keys, indexes, triggers and functions', async () => {
    expect(await catalogue.built()).toEqual(catalogue.declared);
  });

  it('differs from the declared one once a migration drops an index or adds a column', async () => {
    const drift: Migration = {
      version: KNOWN + 1,
      name: 'undeclared drift',
      shared: () => 'DROP INDEX payouts_due; ALTER TABLE payouts ADD COLUMN undeclared TEXT;',
    };
    const built = await catalogue.built([...MIGRATIONS, drift]);
    const payouts = built.tables.find((t) => t.name === 'payouts');
    expect(payouts?.columns).toContain('undeclared');
    expect(payouts?.indexes).not.toContain('payouts_due');
    expect(built).not.toEqual(catalogue.declared);
  });
});

SQLITE.describe('schema migrations of the embedded file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('applies every version to a new file once', () => {
    const db = new Database(join(dir, 'gateway.sqlite'));
    try {
      expect(migrateSqlite(db)).toEqual(ALL);
      expect(migrateSqlite(db)).toEqual([]);
      expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual(ALL);
    } finally {
      db.close();
    }
  });

  it('will not open a file whose schema is newer, and lets it go again', () => {
    const path = join(dir, 'gateway.sqlite');
    const first = openSqlite(path);
    first.db.exec(FROM_THE_FUTURE);
    first.close();
    expect(() => openSqlite(path)).toThrow(SchemaTooNewError);
    // The refusal released the file: a second try meets the schema again, not a lock.
    expect(() => openSqlite(path)).toThrow(SchemaTooNewError);
  });
});

POSTGRES.describe('schema migrations of a PostgreSQL database', () => {
  it('applies each version once when two replicas migrate one new database at once', async () => {
    const database = await freshDatabase();
    const pools = [postgresPool(database.url), postgresPool(database.url)];
    try {
      const applied = await Promise.all(pools.map((pool) => migratePostgres(pool)));
      expect(applied.map((versions) => versions.length).sort((a, b) => a - b)).toEqual([0, ALL.length]);
      expect(applied.flat()).toEqual(ALL);
      const { rows } = await withClient(database.url, (client) =>
        client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version'),
      );
      expect(rows.map((r) => r.version)).toEqual(ALL);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await database.drop();
    }
  });

  it('will not open a database whose schema is newer', async () => {
    const database = await freshDatabase();
    try {
      const pool = await openPostgres(database.url);
      await pool.query(FROM_THE_FUTURE);
      await pool.end();
      await expect(openPostgres(database.url)).rejects.toBeInstanceOf(SchemaTooNewError);
    } finally {
      await database.drop();
    }
  });
});
