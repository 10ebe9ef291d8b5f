import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  describeOwnPostgres,
  describePostgres,
  freshDatabase,
  OwnPostgres,
  startOwnPostgres,
  withClient,
} from '../support/postgres';

// The PostgreSQL tests stand on this harness: a wrong one would pass or fail them for nothing.

async function tables(url: string): Promise<string[]> {
  const { rows } = await withClient(url, (client) =>
    client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`,
    ),
  );
  return rows.map((row) => row.name);
}

/** Whether `pid` runs: a process that exited may stay a zombie where nothing reaps orphans. */
function running(pid: number): boolean {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return false;
  const stat = readFileSync(file, 'utf8');
  return stat[stat.lastIndexOf(')') + 2] !== 'Z';
}

const selectOne = (url: string) => withClient(url, (client) => client.query('SELECT 1'));

describePostgres('freshDatabase', () => {
  it('gives an empty database that another one does not see, and drop() removes it under an open connection', async () => {
    const [mine, other] = await Promise.all([freshDatabase(), freshDatabase()]);
    try {
      expect(mine.url).not.toBe(other.url);
      await withClient(mine.url, (client) => client.query('CREATE TABLE only_here (id int)'));
      expect(await tables(mine.url)).toEqual(['only_here']);
      expect(await tables(other.url)).toEqual([]);

      await withClient(mine.url, async (open) => {
        await mine.drop();
        await expect(open.query('SELECT 1')).rejects.toThrow();
      });
      // 3D000: invalid_catalog_name, "database does not exist".
      await expect(selectOne(mine.url)).rejects.toMatchObject({ code: '3D000' });
    } finally {
      await Promise.all([mine.drop(), other.drop()]);
    }
  });
});

describeOwnPostgres('startOwnPostgres', () => {
  let server: OwnPostgres;
  beforeAll(async () => {
    server = await startOwnPostgres();
  }, 60_000);
  afterAll(() => server.destroy());

  it.each(['immediate', 'fast'] as const)(
    "answers, refuses connections after stop('%s') and answers again with its data after start()",
    async (mode) => {
      await withClient(server.url, (client) =>
        client.query(`CREATE TABLE kept_${mode} AS SELECT 'before the stop' AS note`),
      );
      await withClient(server.url, async (open) => {
        await server.stop(mode);
        await expect(open.query('SELECT 1')).rejects.toThrow();
      });
      await expect(selectOne(server.url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      await server.start();
      const { rows } = await withClient(server.url, (client) => client.query(`SELECT note FROM kept_${mode}`));
      expect(rows).toEqual([{ note: 'before the stop' }]);
    },
  );

  it('leaves no folder and no server process after destroy()', async () => {
    const own = await startOwnPostgres();
    const data = await withClient(own.url, async (client) => {
      const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
      return rows[0].data_directory;
    });
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(running(postmaster)).toBe(true);

    await own.destroy();
    expect(existsSync(dirname(data))).toBe(false);
    expect(running(postmaster)).toBe(false);
    await expect(selectOne(own.url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 60_000);
});
