import { ClientRateLimit } from './auth/client.rate-limit';
import { Config } from './config';
import {
  AuditCheckpointStore,
  DisbursementEvents,
  DisbursementStore,
  RecordsReader,
} from './disbursements/disbursement.ports';
import { ReconciliationStore } from './disbursements/reconciliation.model';
import { PostgresReconciliations } from './store/postgres.reconciliations';
import { SqliteReconciliations } from './store/sqlite.reconciliations';
import { openPostgres } from './database/postgres.open';
import { openSqlite } from './database/sqlite.open';
import { PostgresEvents } from './events/postgres.events';
import { PubSubEvents } from './events/pubsub.events';
import { throttle } from './observability/log.throttle';
import { Logger } from './observability/pino.logger';
import { GatewayMetrics } from './observability/gateway.metrics';
import { PostgresRelayQueue } from './relay/postgres.relay-queue';
import { RelayQueue } from './relay/relay.queue';
import { SqliteRelayQueue } from './relay/sqlite.relay-queue';
import { PostgresStore } from './store/postgres.store';
import { SqliteStore } from './store/sqlite.store';
import { PostgresBudgetLedger } from './upstream/postgres.budget';
import { BudgetLedger } from './upstream/provider.budget';
import { SqliteBudgetLedger } from './upstream/sqlite.budget';

export interface Storage {
  /** The system of record; also what finance reads (the audit chain and its checkpoints, statements, exports). */
  store: DisbursementStore & RecordsReader & AuditCheckpointStore;
  runs: ReconciliationStore;
  events: DisbursementEvents & { pubSub: PubSubEvents['pubSub'] };
  /** Client quotas: in memory for the one process of the embedded file, in PostgreSQL for replicas. */
  rateLimit: ClientRateLimit;
  /** Provider budgets (UPSTREAM_RATE_LIMIT_PER_MIN), in the database every replica shares. */
  budget: BudgetLedger;
  /** Relays to clients' own callbackUrl, in the same database. */
  relayQueue: RelayQueue;
  close(): Promise<void>;
}

/** Outage lines: at most 5 a minute, however many requests meet the outage. */
const OUTAGE_LOG = { max: 5, windowMs: 60_000 };
/** How often retention and expired quotas are swept. */
const HOUSEKEEPING_MS = 60_000;

/**
 * The system of record from DATABASE_URL: the embedded SQLite file (one process; its events, quotas
 * in memory) or PostgreSQL (any number of replicas; events over LISTEN/NOTIFY). Opening migrates the
 * schema; it throws when the database cannot be opened (unreachable, in use, a schema too new).
 */
export async function createStorage(
  config: Config,
  logger: Logger,
  metrics: GatewayMetrics,
  chainKey: Buffer,
): Promise<Storage> {
  const { database, retentionSeconds, eventRetentionSeconds } = config;
  const retention = { retentionMs: retentionSeconds * 1000, eventRetentionMs: eventRetentionSeconds * 1000 };
  if (database.engine === 'sqlite') {
    const handle = openSqlite(database.path);
    const events = new PubSubEvents();
    const store = new SqliteStore({
      db: handle.db,
      chainKey,
      onChange: (record) => void events.publish(record),
      ...retention,
    });
    const housekeeping = every(HOUSEKEEPING_MS, async () => void store.prune(), logger);
    return {
      store,
      runs: new SqliteReconciliations(handle.db),
      events,
      rateLimit: ClientRateLimit.inMemory(config.clientRateLimitPerMin),
      budget: new SqliteBudgetLedger(handle.db),
      relayQueue: new SqliteRelayQueue(handle.db),
      async close() {
        clearInterval(housekeeping);
        await events.close();
        handle.close();
      },
    };
  }
  const outageLine = throttle(OUTAGE_LOG.max, OUTAGE_LOG.windowMs);
  const onOutage = (error: unknown) => {
    metrics.storeErrors.inc({ kind: 'outage' });
    const { pass, suppressed } = outageLine();
    if (pass)
      logger.warn(
        { err: error, ...(suppressed > 0 && { suppressed }) },
        'database unavailable: answering SERVICE_UNAVAILABLE',
      );
  };
  const pool = await openPostgres(database.url, { onError: onOutage, ownerUrl: config.databaseOwnerUrl });
  const events = new PostgresEvents({ url: database.url, pool, onError: onOutage });
  const store = new PostgresStore({ pool, chainKey, onOutage, ...retention });
  const rateLimit = ClientRateLimit.inPostgres(pool, config.clientRateLimitPerMin);
  const housekeeping = every(HOUSEKEEPING_MS, async () => void (await store.prune()), logger);
  return {
    store,
    runs: new PostgresReconciliations(pool),
    events,
    rateLimit,
    budget: new PostgresBudgetLedger(pool),
    relayQueue: new PostgresRelayQueue(pool),
    async close() {
      clearInterval(housekeeping);
      await events.close();
      await pool.end();
    },
  };
}

/** A timer that never keeps the process alive, whose failures are logged, not thrown. */
function every(ms: number, work: () => Promise<void>, logger: Logger): NodeJS.Timeout {
  const timer = setInterval(() => {
    work().catch((error: unknown) => logger.warn({ err: error }, 'housekeeping failed; tried again later'));
  }, ms);
  timer.unref();
  return timer;
}
