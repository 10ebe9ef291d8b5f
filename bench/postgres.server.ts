import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server of the bench's own, on a free port, so its figures are the gateway's alone. */
export interface OwnPostgres {
  url: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** initdb and postgres refuse root: as root they run as the postgres system user, from /. */
function asServerUser(command: string, args: string[]): Promise<unknown> {
  const [file, argv] =
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return run(file, argv, { cwd: '/' });
}

/** Starts PostgreSQL 15 in a new folder (fsync off: the data is thrown away); undefined where it is not installed. */
export async function startOwnPostgres(): Promise<OwnPostgres | undefined> {
  const bin = [BIN, ...(process.env.PATH ?? '').split(':')].find((dir) => existsSync(join(dir, 'initdb')));
  if (!bin) return undefined;
  const folder = await mkdtemp(join(tmpdir(), 'bench-pg-'));
  if (process.getuid?.() === 0) await run('chown', ['postgres', folder]);
  const data = join(folder, 'data');
  const port = await freePort();
  await asServerUser(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${folder} -c fsync=off -c max_connections=100`;
  await asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(folder, 'log'), '-o', options, '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    close: async () => {
      await asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
