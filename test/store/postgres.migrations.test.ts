import { openPostgres, postgresPool } from '../../src/database/postgres.open';
import { migratePostgres, SchemaTooNewError } from '../../src/database/schema.migrate';
import { POSTGRES_SCHEMA } from '../../src/database/postgres.migrations';
import { DECLARED_TABLES } from '../../src/database/schema.declared';
import { POSTGRES } from '../support/postgres.engine';
import { freshDatabase, twoRoleDatabase, withClient } from '../support/postgres';
import { ALL, FROM_THE_FUTURE } from './migrations.fixtures';

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

  it('opens every replica when several start together with an owner role that grants the gateway role', async () => {
    // The grant after migrating ran outside the migration lock: concurrent GRANTs on one table failed a
    // replica's start with "tuple concurrently updated".
    const database = await twoRoleDatabase();
    try {
      for (let round = 0; round < 3; round += 1) {
        const opened = await Promise.allSettled(
          Array.from({ length: 6 }, () => openPostgres(database.gatewayUrl, { ownerUrl: database.ownerUrl })),
        );
        for (const o of opened) if (o.status === 'fulfilled') await o.value.end();
        expect(opened.map((o) => (o.status === 'rejected' ? String(o.reason) : 'opened'))).toEqual(
          Array(6).fill('opened'),
        );
      }
      const gateway = postgresPool(database.gatewayUrl);
      const { rows } = await gateway.query<{ n: number }>('SELECT count(*)::int AS n FROM payouts');
      await gateway.end();
      expect(rows[0].n).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it("gives the gateway's role exactly the access each table's declaration names, and the declared functions", async () => {
    const database = await twoRoleDatabase();
    try {
      const pool = await openPostgres(database.gatewayUrl, { ownerUrl: database.ownerUrl });
      await pool.end();
      const role = new URL(database.gatewayUrl).username;
      const tables = [...DECLARED_TABLES, ...POSTGRES_SCHEMA.tables];
      const access = await withClient(database.ownerUrl, async (client) => {
        const found: Record<string, string> = {};
        for (const { name } of tables) {
          const { rows } = await client.query<Record<'s' | 'i' | 'u' | 'd', boolean>>(
            `SELECT has_table_privilege($1, $2, 'SELECT') AS s, has_table_privilege($1, $2, 'INSERT') AS i,
              has_table_privilege($1, $2, 'UPDATE') AS u, has_table_privilege($1, $2, 'DELETE') AS d`,
            [role, name],
          );
          const { s, i, u, d } = rows[0];
          found[name] = s && i && u && d ? 'write' : s && !i && !u && !d ? 'read' : JSON.stringify(rows[0]);
        }
        const { rows } = await client.query<{ name: string }>(
          `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = 'public' AND has_function_privilege($1, p.oid, 'EXECUTE') ORDER BY 1`,
          [role],
        );
        return { tables: found, functions: rows.map((r) => r.name) };
      });
      expect(access.tables).toEqual(Object.fromEntries(tables.map((t) => [t.name, t.gateway])));
      // Those granted, and the trigger functions PostgreSQL lets anyone run: only a trigger can call one.
      expect(access.functions).toEqual(expect.arrayContaining([...POSTGRES_SCHEMA.gatewayExecutes]));
      expect(access.functions).toEqual([...POSTGRES_SCHEMA.functions].sort());
    } finally {
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
