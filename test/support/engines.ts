import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { ClientRateLimit } from '../../src/auth/client.rate-limit';
import { migratePostgres, migrateSqlite } from '../../src/database/schema.migrate';
import { openPostgres, postgresPool } from '../../src/database/postgres.open';
import { openSqlite } from '../../src/database/sqlite.open';
import {
  BeneficiaryStore,
  DisbursementEvents,
  DisbursementStore,
  RecordsReader,
} from '../../src/disbursements/disbursement.ports';
import { ReconciliationStore } from '../../src/disbursements/reconciliation.model';
import { PostgresEvents } from '../../src/events/postgres.events';
import { PubSubEvents } from '../../src/events/pubsub.events';
import { PostgresRelayQueue } from '../../src/relay/postgres.relay-queue';
import { RelayQueue } from '../../src/relay/relay.queue';
import { SqliteRelayQueue } from '../../src/relay/sqlite.relay-queue';
import { PostgresReconciliations } from '../../src/store/postgres.reconciliations';
import { PostgresStore } from '../../src/store/postgres.store';
import { SqliteReconciliations } from '../../src/store/sqlite.reconciliations';
import { SqliteStore } from '../../src/store/sqlite.store';
import { PostgresBudgetLedger } from '../../src/upstream/postgres.budget';
import { BudgetLedger } from '../../src/upstream/provider.budget';
import { SqliteBudgetLedger } from '../../src/upstream/sqlite.budget';
import { describePostgres, freshDatabase } from './postgres';
import { TEST_CHAIN_KEY } from './chain-key';

/** The store's settings a test may choose, and its clock. */
export interface StoreSettings {
  now?: () => number;
  retentionMs?: number;
  eventRetentionMs?: number;
}

/** A store as the gateway holds it: the port, what finance reads, and retention's sweep. */
export type StoreUnderTest = DisbursementStore &
  RecordsReader &
  BeneficiaryStore & { prune(now?: number): number | Promise<number> };

/**
 * A database of a test's own on one engine, migrated, and the storage ports over it. Each call opens
 * another instance, as another replica would: on PostgreSQL each has a pool (connections) of its own;
 * the embedded file serves one process, so its instances share its handle and its events.
 */
export interface TestDatabase {
  engine: EngineName;
  store(settings?: StoreSettings): StoreUnderTest;
  /** Events that hear every change any store of this database logs. */
  events(): DisbursementEvents;
  relayQueue(): RelayQueue;
  budget(): BudgetLedger;
  rateLimit(perMinute: number): ClientRateLimit;
  runs(): ReconciliationStore;
  /** The database's size on disk in bytes (the embedded file after a checkpoint of its WAL). */
  bytes(): Promise<number>;
  /** Applies the migrations the database lacks; the versions applied. */
  migrate(): Promise<number[]>;
  /** Runs SQL behind the ports' back. */
  exec(sql: string): Promise<void>;
  /** Closes everything opened on it and removes the database. */
  close(): Promise<void>;
}

export type EngineName = 'SQLite' | 'PostgreSQL';

export interface Engine {
  name: EngineName;
  /** `describe` where the engine can run; elsewhere skipped with one printed line. */
  describe(name: string, fn: () => void): void;
  open(): Promise<TestDatabase>;
}

/** An embedded file in a new temporary folder, removed with it. */
async function openSqliteDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-'));
  const handle = openSqlite(join(dir, 'gateway.sqlite'));
  const events = new PubSubEvents();
  return {
    engine: 'SQLite',
    store: (settings) =>
      new SqliteStore({
        db: handle.db,
        chainKey: TEST_CHAIN_KEY,
        onChange: (r) => void events.publish(r),
        ...settings,
      }),
    events: () => events,
    relayQueue: () => new SqliteRelayQueue(handle.db),
    budget: () => new SqliteBudgetLedger(handle.db),
    rateLimit: (perMinute) => ClientRateLimit.inMemory(perMinute),
    runs: () => new SqliteReconciliations(handle.db),
    bytes: async () => {
      handle.db.pragma('wal_checkpoint(TRUNCATE)');
      const pages = handle.db.pragma('page_count', { simple: true }) as number;
      return pages * (handle.db.pragma('page_size', { simple: true }) as number);
    },
    migrate: async () => migrateSqlite(handle.db),
    exec: async (sql) => void handle.db.exec(sql),
    close: async () => {
      handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database on TEST_DATABASE_URL's server, dropped at close with whatever is still connected. */
async function openPostgresDatabase(): Promise<TestDatabase> {
  const database = await freshDatabase();
  const pools: Pool[] = [await openPostgres(database.url)];
  const closers: (() => Promise<void>)[] = [];
  const pool = () => {
    const opened = postgresPool(database.url, { maxConnections: 8 });
    pools.push(opened);
    return opened;
  };
  return {
    engine: 'PostgreSQL',
    store: (settings) => new PostgresStore({ pool: pool(), chainKey: TEST_CHAIN_KEY, ...settings }),
    events: () => {
      const events = new PostgresEvents({ url: database.url, pool: pool() });
      closers.push(() => events.close());
      return events;
    },
    relayQueue: () => new PostgresRelayQueue(pool()),
    budget: () => new PostgresBudgetLedger(pool()),
    rateLimit: (perMinute) => ClientRateLimit.inPostgres(pool(), perMinute),
    runs: () => new PostgresReconciliations(pool()),
    bytes: async () => {
      const { rows } = await pools[0].query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
      return Number(rows[0].bytes);
    },
    migrate: () => migratePostgres(pools[0]),
    exec: async (sql) => void (await pools[0].query(sql)),
    close: async () => {
      await Promise.all(closers.map((close) => close()));
      await Promise.all(pools.map((p) => p.end()));
      await database.drop();
    },
  };
}

export const SQLITE: Engine = { name: 'SQLite', describe, open: openSqliteDatabase };
export const POSTGRES: Engine = { name: 'PostgreSQL', describe: describePostgres, open: openPostgresDatabase };

/** Every engine a port is proven on: a third adds one line. */
const ENGINES: readonly Engine[] = [SQLITE, POSTGRES];

/** `fn` once per engine, each in a block named after it. */
export function describeEngines(name: string, fn: (engine: Engine) => void): void {
  for (const engine of ENGINES) engine.describe(`${name} (${engine.name})`, () => fn(engine));
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
