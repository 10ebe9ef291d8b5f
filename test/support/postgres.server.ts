import { ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

// No jest globals here: the bench starts its PostgreSQL with this module too.

const run = promisify(execFile);

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
export function serverBinaries(): string | undefined {
  const path = (process.env.PATH ?? '').split(delimiter);
  return ['/usr/lib/postgresql/15/bin', ...path].find((dir) => existsSync(join(dir, 'initdb')));
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

/**
 * A PostgreSQL of its own, in a new folder on a free port of 127.0.0.1, to stop and start under traffic (tests) or
 * to measure alone (the bench). initdb takes a second or two. Call destroy() when done.
 */
export async function startPostgresServer(): Promise<OwnPostgres> {
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
      if (guard.exitCode !== null || guard.signalCode !== null) return resolve();
      guard.once('exit', () => resolve());
      guard.stdin?.end();
    }));
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
