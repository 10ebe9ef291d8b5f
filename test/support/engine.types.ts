import { ClientRateLimit } from '../../src/auth/client.rate-limit';
import {
  BeneficiaryStore,
  DisbursementEvents,
  DisbursementStore,
  RecordsReader,
} from '../../src/disbursements/disbursement.ports';
import { ReconciliationStore } from '../../src/disbursements/reconciliation.model';
import { RelayQueue } from '../../src/relay/relay.queue';
import { RelayJob } from '../../src/disbursements/relay.job';
import { BudgetLedger } from '../../src/upstream/provider.budget';

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
 * another instance, as another replica would: on a server engine each has connections of its own;
 * an embedded file serves one process, so its instances share its handle and its events.
 */
export interface TestDatabase {
  store(settings?: StoreSettings): StoreUnderTest;
  /** Events that hear every change any store of this database logs. */
  events(): DisbursementEvents;
  relayQueue(): RelayQueue;
  /** Queues a relay job with the insert a store's final write runs, due at `at` (the queue's contract seeds with it). */
  queueRelay(job: RelayJob, at: Date): Promise<void>;
  budget(): BudgetLedger;
  rateLimit(perMinute: number): ClientRateLimit;
  runs(): ReconciliationStore;
  /** The database's size on disk in bytes (an embedded file after a checkpoint of its WAL). */
  bytes(): Promise<number>;
  /** Applies the migrations the database lacks; the versions applied. */
  migrate(): Promise<number[]>;
  /** Runs SQL behind the ports' back. */
  exec(sql: string): Promise<void>;
  /** The rows a query without parameters answers, behind the ports' back, each as the driver gives it. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** Closes everything opened on it and removes the database. */
  close(): Promise<void>;
}

/** A database for the gateways one block starts (as replicas, or one gateway restarted). */
export interface GatewayDatabase {
  /** The gateway's settings for it: DATABASE_URL, and DATABASE_OWNER_URL where a second role migrates. */
  env: Record<string, string>;
  /** Removes the database (and any role made for it). */
  drop(): Promise<void>;
}

/** SQL as an insider runs it behind the gateway's back, written with `?` placeholders on every engine. */
export interface InsiderSql {
  all<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  run(sql: string, ...params: unknown[]): Promise<void>;
}

/** A copy of a database, beside it, and how to remove it. */
export interface DatabaseCopy {
  url: string;
  remove(): Promise<void>;
}

/**
 * What an engine offers beyond the ports every engine serves:
 * - `replicas`: several gateway processes (or instances of the ports) share one database;
 * - `roles`: the gateway runs as a least-privilege role beside the owner that migrates;
 * - `listenNotify`: changes are heard across processes through the database itself.
 */
export type Capability = 'replicas' | 'roles' | 'listenNotify';

/** One engine the tests run on: an entry of the registry in engines.ts. */
export interface Engine {
  name: string;
  capabilities: readonly Capability[];
  /** `describe` where the engine can run; elsewhere skipped with one printed line. */
  describe(name: string, fn: () => void): void;
  /** A database for port suites. */
  open(): Promise<TestDatabase>;
  /** A database for gateways, set up as production runs it on this engine. */
  gatewayDatabase(): Promise<GatewayDatabase>;
  /** Whether a gateway's DATABASE_URL names a database of this engine. */
  serves(url: string): boolean;
  /**
   * Runs `use` on the database at `url` (its owner's) as someone who can write to it would: the append-only
   * guards lifted for the length of `use`.
   */
  asInsider(url: string, use: (sql: InsiderSql) => Promise<void>): Promise<void>;
  /** A copy of the database at `url` (its owner's). */
  copy(url: string): Promise<DatabaseCopy>;
}
