import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { Client, escapeIdentifier } from 'pg';

const run = promisify(execFile);

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
    },
  };
}

export interface OwnPostgres {
  /** Its `postgres` database as superuser `postgres` over TCP; the same across stop() and start(). */
  url: string;
  /** 'immediate' kills it as a crash would (start() then recovers); 'fast' ends every session and shuts down. */
  stop(mode: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it at once and removes its folder; a second call does nothing. */
  destroy(): Promise<void>;
}

/** PostgreSQL 15's server binaries, which Debian keeps off PATH; elsewhere, the ones on PATH. */
function serverBinaries(): string | undefined {
  const path = (process.env.PATH ?? '').split(delimiter);
  return ['/usr/lib/postgresql/15/bin', ...path].find((dir) => existsSync(join(dir, 'initdb')));
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

// initdb, pg_ctl and postgres refuse to run as root: as root they run as the postgres system user, who owns the
// folder, and from /, as the current folder may be closed to that user.
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function runAsServerUser(command: string, args: string[]): Promise<string> {
  const [file, argv] = asServerUser(command, args);
  return (await run(file, argv, { cwd: '/' })).stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Stops the server at once and removes its folder when its stdin closes: on destroy(), or when this process ends
 * however it ends. No 'exit' hook could: jest gives a test file a copy of `process` whose 'exit' never fires, and a
 * worker killed on a timeout runs none. Detached, so the Ctrl-C that ends jest does not end it before it cleans up.
 */
function watchdog(dir: string, stop: [string, string[]]): ChildProcess {
  const [command, args] = stop;
  return spawn('sh', ['-c', 'cat >/dev/null; "$@" >/dev/null 2>&1; rm -rf "$0"', dir, command, ...args], {
    cwd: '/',
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
}

const running = new Set<() => Promise<void>>();

/** Destroys whatever server a test file forgot, so that none outlives its file. */
afterAll(async () => {
  await Promise.all([...running].map((destroy) => destroy()));
});

/**
 * A PostgreSQL of the test's own, in a new folder on a free port of 127.0.0.1, to stop and start under traffic.
 * initdb takes a second or two. Call destroy() in afterAll.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = serverBinaries();
  if (!bin) throw new Error('no PostgreSQL server binaries (initdb)');
  const dir = (await runAsServerUser('mktemp', ['-d', join(tmpdir(), 'pgw-postgres-XXXXXX')])).trim();
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const pgCtl = join(bin, 'pg_ctl');
  const guard = watchdog(dir, asServerUser(pgCtl, ['-D', data, '-m', 'immediate', 'stop']));
  let destroyed: Promise<void> | undefined;
  const destroy = () =>
    (destroyed ??= new Promise<void>((resolve) => {
      running.delete(destroy);
      if (guard.exitCode !== null || guard.signalCode !== null) return resolve();
      guard.once('exit', () => resolve());
      guard.stdin?.end();
    }));
  running.add(destroy);
  const start = async () => {
    try {
      await runAsServerUser(pgCtl, ['-D', data, '-l', log, 'start']);
    } catch (error) {
      const output = existsSync(log) ? readFileSync(log, 'utf8') : '';
      throw new Error(`PostgreSQL in ${dir} did not start: ${String(error)}\n${output}`, { cause: error });
    }
  };

  try {
    // --no-sync: the folder is thrown away at the end.
    const initdb = ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'];
    await runAsServerUser(join(bin, 'initdb'), [...initdb, '--no-instructions']);
    // Picked only now: nothing holds the port until the server binds it.
    const port = await freePort();
    // fsync off: the data only has to outlive the server, never the machine; synchronous_commit stays on, so an
    // immediate stop still keeps every commit. Small shared_buffers: several of these may run side by side.
    const settings = [
      `listen_addresses = '127.0.0.1'`,
      `port = ${port}`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'shared_buffers = 32MB',
    ];
    appendFileSync(join(data, 'postgresql.conf'), `${settings.join('\n')}\n`);
    await start();
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      stop: async (mode) => {
        await runAsServerUser(pgCtl, ['-D', data, '-m', mode, 'stop']);
      },
      start,
      destroy,
    };
  } catch (error) {
    await destroy();
    throw error;
  }
}
