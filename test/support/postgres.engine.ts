import { randomUUID } from 'node:crypto';
import { escapeIdentifier, type Pool } from 'pg';
import { ClientRateLimit } from '../../src/auth/client.rate-limit';
import { openPostgres, postgresPool } from '../../src/database/postgres.open';
import { pgQuery } from '../../src/database/postgres.query';
import { enqueueOne } from '../../src/database/relay-jobs.statements';
import { migratePostgres } from '../../src/database/schema.migrate';
import { PostgresEvents } from '../../src/events/postgres.events';
import { PostgresRelayQueue } from '../../src/relay/postgres.relay-queue';
import { PostgresReconciliations } from '../../src/store/postgres.reconciliations';
import { postgresStore } from '../../src/store/postgres.engine';
import { PostgresBudgetLedger } from '../../src/upstream/postgres.budget';
import { TEST_ENTRY_KEY } from './chain-key';
import { DatabaseCopy, Engine, InsiderSql, TestDatabase } from './engine.types';
import { describePostgres, freshDatabase, twoRoleDatabase, withClient } from './postgres';

/** A fresh database on TEST_DATABASE_URL's server, dropped at close with whatever is still connected. */
async function openPostgresDatabase(): Promise<TestDatabase> {
  const database = await freshDatabase();
  const pools: Pool[] = [await openPostgres(database.url)];
  const closers: (() => Promise<void>)[] = [];
  const pool = () => {
    const opened = postgresPool(database.url, { maxConnections: 8 });
    pools.push(opened);
    return opened;
  };
  return {
    store: (settings) => postgresStore({ pool: pool(), entryKey: TEST_ENTRY_KEY, ...settings }),
    events: () => {
      const events = new PostgresEvents({ url: database.url, pool: pool() });
      closers.push(() => events.close());
      return events;
    },
    relayQueue: () => new PostgresRelayQueue(pool()),
    queueRelay: async (job, at) =>
      void (await pgQuery(pools[0], enqueueOne(at.getTime(), JSON.stringify(job), job.merchantId, job.referenceId))),
    budget: () => new PostgresBudgetLedger(pool()),
    rateLimit: (perMinute) => ClientRateLimit.inPostgres(pool(), perMinute),
    runs: () => new PostgresReconciliations(pool()),
    bytes: async () => {
      const { rows } = await pools[0].query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
      return Number(rows[0].bytes);
    },
    migrate: () => migratePostgres(pools[0]),
    exec: async (sql) => void (await pools[0].query(sql)),
    rows: async (sql) => (await pools[0].query<Record<string, unknown>>(sql)).rows,
    close: async () => {
      await Promise.all(closers.map((close) => close()));
      await Promise.all(pools.map((p) => p.end()));
      await database.drop();
    },
  };
}

/** As superuser, with every trigger off for the transaction (session_replication_role). */
async function asInsider(url: string, use: (sql: InsiderSql) => Promise<void>): Promise<void> {
  await withClient(url, async (client) => {
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await use({
      all: async <T>(sql: string, ...params: unknown[]) => (await client.query(numbered(sql), params)).rows as T[],
      run: async (sql, ...params) => void (await client.query(numbered(sql), params)),
    });
    await client.query('COMMIT');
  });
}

/** A database made from the one at `url` as its template, on the same server. */
async function copy(databaseUrl: string): Promise<DatabaseCopy> {
  const url = new URL(databaseUrl);
  const source = url.pathname.slice(1);
  const name = `copy_${randomUUID().replaceAll('-', '')}`;
  const server = new URL(databaseUrl);
  server.pathname = '/postgres';
  await withClient(server.toString(), (client) =>
    client.query(`CREATE DATABASE ${escapeIdentifier(name)} TEMPLATE ${escapeIdentifier(source)}`),
  );
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    remove: async () => {
      await withClient(databaseUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`),
      );
    },
  };
}

/**
 * PostgreSQL on TEST_DATABASE_URL's server. Gateways run on it as production does, on two roles:
 * DATABASE_OWNER_URL migrates, DATABASE_URL is a role of the block's own with only what the migrations grant.
 */
export const POSTGRES: Engine = {
  name: 'PostgreSQL',
  capabilities: ['replicas', 'roles', 'listenNotify'],
  describe: describePostgres,
  open: openPostgresDatabase,
  gatewayDatabase: async () => {
    const database = await twoRoleDatabase();
    return {
      env: { DATABASE_URL: database.gatewayUrl, DATABASE_OWNER_URL: database.ownerUrl },
      drop: () => database.drop(),
    };
  },
  serves: (url) => /^postgres(ql)?:\/\//.test(url),
  asInsider,
  copy,
};
