import { EngineNeeds, enginesHaving } from './engines';
import { Engine, GatewayDatabase } from './engine.types';

/**
 * The same gateway tests on every registered engine (engines.ts) having what `options.needs`; engines that
 * cannot run here are skipped with one printed line. `env()` gives the gateway settings of the engine: one
 * database per block, as the engine sets it up for production (gatewayDatabase), shared by the stacks the
 * block starts (as replicas, or one gateway restarted). SQL behind the gateway's back goes through `ownerUrl`.
 * `engine` is there for what a test asks of its capabilities, never its name.
 */
export function describeEachEngine(
  name: string,
  fn: (env: () => Record<string, string>, engine: Engine) => void,
  options?: EngineNeeds,
): void {
  for (const engine of enginesHaving(options)) {
    engine.describe(`${name} (${engine.name})`, () => {
      let database: GatewayDatabase | undefined;
      // Declared before the block's own hooks, so it runs before them.
      beforeAll(async () => {
        database = await engine.gatewayDatabase();
      });
      fn(() => {
        if (!database) throw new Error('the database of this block is not ready yet');
        return database.env;
      }, engine);
      // Declared after the block's own hooks, so it runs after them (jest runs afterAll in declaration
      // order): the gateways the block started are closed before their database goes.
      afterAll(async () => {
        await database?.drop();
      });
    });
  }
}

/** The URL for SQL behind the gateway's back: the owner's where a second role migrates, else the gateway's own. */
export const ownerUrl = (env: Record<string, string>): string => env.DATABASE_OWNER_URL ?? env.DATABASE_URL;
