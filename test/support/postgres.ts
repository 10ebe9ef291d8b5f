import { randomUUID } from 'node:crypto';
import { Client, escapeIdentifier } from 'pg';
import { rmSync } from 'node:fs';
import { defaultCheckpointFile } from '../../src/database/database.target';
import { OwnPostgres, serverBinaries, startPostgresServer } from './postgres.server';

export type { OwnPostgres } from './postgres.server';

/** The PostgreSQL server the tests may use; unset: PostgreSQL tests are skipped. */
export function postgresUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

function requirePostgresUrl(): string {
  const url = postgresUrl();
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  return url;
}

// Jest loads this module afresh for every test file, so a flag here would print once per file;
// the stderr stream is shared by all the files a worker runs.
const NOTICED: unique symbol = Symbol.for('payout-gateway.postgres-notices');

function noticeOnce(message: string): void {
  const stderr: NodeJS.WriteStream & { [NOTICED]?: Set<string> } = process.stderr;
  const noticed = (stderr[NOTICED] ??= new Set());
  if (noticed.has(message)) return;
  noticed.add(message);
  stderr.write(`${message}\n`);
}

/** `describe` with TEST_DATABASE_URL set, and then failing (never skipping) when that server does not answer. */
export function describePostgres(name: string, fn: () => void): void {
  const url = postgresUrl();
  if (!url) {
    noticeOnce('TEST_DATABASE_URL is not set: PostgreSQL tests skipped');
    describe.skip(name, fn);
    return;
  }
  describe(name, () => {
    beforeAll(async () => {
      try {
        await withClient(url, (client) => client.query('SELECT 1'));
      } catch (error) {
        throw new Error(`TEST_DATABASE_URL is set but PostgreSQL at ${url} does not answer: ${String(error)}`, {
          cause: error,
        });
      }
    });
    fn();
  });
}

/** Runs `use` with a client of `url`, for SQL behind the code's back; closes it after. */
export async function withClient<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  // A server that goes away under an idle client emits 'error', which unheard would end the jest worker;
  // a query in flight rejects with it all the same.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * The backend pids of the sessions of `url`'s database that listen for changes (a gateway holds one per process,
 * whatever its subscriptions); a session's `query` is the last statement it ran.
 */
export async function listeningSessions(url: string): Promise<number[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %' ORDER BY pid`,
    );
    return rows.map((row) => row.pid);
  });
}

export interface FreshDatabase {
  /** TEST_DATABASE_URL with the new database's name. */
  url: string;
  /** Ends its remaining connections and drops it. */
  drop(): Promise<void>;
}

/**
 * A new empty database on TEST_DATABASE_URL's server, for one test file or block: tables, data and LISTEN/NOTIFY
 * channels never meet another test's, and nothing depends on what an earlier run left.
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const server = requirePostgresUrl();
  const name = `test_${randomUUID().replaceAll('-', '')}`;
  const quoted = escapeIdentifier(name);
  // template0 is empty whatever a developer's server added to template1, and takes any encoding and locale.
  await withClient(server, (client) =>
    client.query(`CREATE DATABASE ${quoted} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'`),
  );
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withClient(server, (client) => client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`));
      // A gateway started in the test's own folder kept its audit checkpoints in the database's default file there.
      rmSync(defaultCheckpointFile({ engine: 'postgres', url: url.toString() }), { force: true });
    },
  };
}

/** `describe` where startOwnPostgres() can run, skipped with one printed line where it cannot. */
export function describeOwnPostgres(name: string, fn: () => void): void {
  if (serverBinaries()) {
    describe(name, fn);
    return;
  }
  noticeOnce('no PostgreSQL server binaries (initdb): tests that start their own PostgreSQL skipped');
  describe.skip(name, fn);
}

const running = new Set<() => Promise<void>>();

/** Destroys whatever server a test file forgot, so that none outlives its file. */
afterAll(async () => {
  await Promise.all([...running].map((destroy) => destroy()));
});

/**
 * A PostgreSQL of the test's own (startPostgresServer), destroyed after the file's tests if the test forgot to.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const server = await startPostgresServer();
  const destroy = async () => {
    running.delete(destroy);
    await server.destroy();
  };
  running.add(destroy);
  return { ...server, destroy };
}

/** A database of its own and two roles on TEST_DATABASE_URL's server, as production runs it. */
export interface TwoRoleDatabase {
  /** DATABASE_OWNER_URL: the role that migrates and owns the schema (the test server's own). */
  ownerUrl: string;
  /** DATABASE_URL: a login role of this database's own, given only what the migrations grant. */
  gatewayUrl: string;
  /** Drops the database, then the role. */
  drop(): Promise<void>;
}

/** A fresh database, and a gateway role with a unique name made for it (roles are server-wide). */
export async function twoRoleDatabase(): Promise<TwoRoleDatabase> {
  const database = await freshDatabase();
  const role = `gateway_${randomUUID().replaceAll('-', '')}`;
  await withClient(requirePostgresUrl(), (client) => client.query(`CREATE ROLE ${escapeIdentifier(role)} LOGIN`));
  const gatewayUrl = new URL(database.url);
  gatewayUrl.username = role;
  gatewayUrl.password = '';
  return {
    ownerUrl: database.url,
    gatewayUrl: gatewayUrl.toString(),
    drop: async () => {
      await database.drop();
      await withClient(requirePostgresUrl(), (client) => client.query(`DROP ROLE IF EXISTS ${escapeIdentifier(role)}`));
    },
  };
}
