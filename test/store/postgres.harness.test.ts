import { describePostgres, freshDatabase, withClient } from '../support/postgres';

// The PostgreSQL tests stand on this harness: a wrong one would pass or fail them for nothing.

async function tables(url: string): Promise<string[]> {
  const { rows } = await withClient(url, (client) =>
    client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`,
    ),
  );
  return rows.map((row) => row.name);
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
