import { describePostgres, TwoRoleDatabase, twoRoleDatabase } from './postgres';
import { sqliteFile } from './stack';

/**
 * The same tests on every engine: the embedded SQLite file and (when TEST_DATABASE_URL is set)
 * PostgreSQL. `env()` gives the gateway settings of the engine: one file, or one fresh database,
 * per block, shared by the stacks the block starts (as replicas, or one gateway restarted). On
 * PostgreSQL the gateway runs as production does, on two roles: DATABASE_OWNER_URL migrates,
 * DATABASE_URL is a role of the block's own with only what the migrations grant; SQL behind the
 * gateway's back goes through the owner (`ownerUrl`).
 */
export function describeEachEngine(name: string, fn: (env: () => Record<string, string>) => void): void {
  describe(`${name} (SQLite)`, () => {
    const file = sqliteFile();
    fn(() => ({ DATABASE_URL: file.url }));
    // Declared after the block's own hooks, so it runs after them (jest runs afterAll in declaration
    // order): the gateways the block started are closed before their database goes.
    afterAll(() => file.remove());
  });
  describePostgres(`${name} (PostgreSQL)`, () => {
    let database: TwoRoleDatabase | undefined;
    beforeAll(async () => {
      database = await twoRoleDatabase();
    });
    fn(() => {
      if (!database) throw new Error('the database of this block is not ready yet');
      return { DATABASE_URL: database.gatewayUrl, DATABASE_OWNER_URL: database.ownerUrl };
    });
    afterAll(async () => {
      await database?.drop();
    });
  });
}

/** The URL for SQL behind the gateway's back: the owner's on PostgreSQL, the file itself on SQLite. */
export const ownerUrl = (env: Record<string, string>): string => env.DATABASE_OWNER_URL ?? env.DATABASE_URL;
