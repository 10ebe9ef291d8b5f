import { describePostgres, freshDatabase, FreshDatabase } from './postgres';
import { sqliteFile } from './stack';

/**
 * The same tests on every engine: the embedded SQLite file and (when TEST_DATABASE_URL is set)
 * PostgreSQL. `env()` gives the gateway settings of the engine: one file, or one fresh database,
 * per block, shared by the stacks the block starts (as replicas, or one gateway restarted).
 */
export function describeEachEngine(name: string, fn: (env: () => Record<string, string>) => void): void {
  describe(`${name} (SQLite)`, () => {
    const file = sqliteFile();
    afterAll(() => file.remove());
    fn(() => ({ DATABASE_URL: file.url }));
  });
  describePostgres(`${name} (PostgreSQL)`, () => {
    let database: FreshDatabase | undefined;
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterAll(async () => {
      await database?.drop();
    });
    fn(() => {
      if (!database) throw new Error('the database of this block is not ready yet');
      return { DATABASE_URL: database.url };
    });
  });
}
