import { Capability, Engine, TestDatabase } from './engine.types';
import { POSTGRES } from './postgres.engine';
import { SQLITE } from './sqlite.engine';

export type { Capability, Engine, StoreSettings, StoreUnderTest, TestDatabase } from './engine.types';

/**
 * Every engine the gateway is tested on: port contract suites (describeEngines) and gateway tests
 * (describeEachEngine in modes.ts) run on each entry. A third engine adds one line.
 */
const ENGINES: readonly Engine[] = [SQLITE, POSTGRES];

/** The registered engine of a gateway's DATABASE_URL, for SQL behind the gateway's back. */
export function engineServing(url: string): Engine {
  const engine = ENGINES.find((each) => each.serves(url));
  if (!engine) throw new Error('no registered engine serves this DATABASE_URL');
  return engine;
}

/** What a block asks of the engines it runs on. */
export interface EngineNeeds {
  /** Only engines with every one of these capabilities. */
  needs?: readonly Capability[];
}

/** The registered engines that have every capability `needs` names. */
export function enginesHaving({ needs = [] }: EngineNeeds = {}): readonly Engine[] {
  return ENGINES.filter((engine) => needs.every((capability) => engine.capabilities.includes(capability)));
}

/** `fn` once per engine (having what `options.needs`), each in a block named after it. */
export function describeEngines(name: string, fn: (engine: Engine) => void, options?: EngineNeeds): void {
  for (const engine of enginesHaving(options)) engine.describe(`${name} (${engine.name})`, () => fn(engine));
}

/** A database of each test's own in the enclosing block: opened before it, closed and removed after. */
export function databasePerTest(engine: Engine): () => TestDatabase {
  let current: TestDatabase | undefined;
  beforeEach(async () => {
    current = await engine.open();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('the database of this test is not open');
    return current;
  };
}
