import { ClientRateLimit } from './auth/client.rate-limit';
import { Config } from './config';
import {
  AuditCheckpointStore,
  BeneficiaryStore,
  DisbursementEvents,
  DisbursementStore,
  RecordsReader,
} from './disbursements/disbursement.ports';
import { ReconciliationStore } from './disbursements/reconciliation.model';
import { PostgresReconciliations } from './store/postgres.reconciliations';
import { SqliteReconciliations } from './store/sqlite.reconciliations';
import { openPostgres } from './database/postgres.open';
import { openSqlite } from './database/sqlite.open';
import { checkHistory } from './database/sqlite.mark';
import { postgresLatestRewind, sqliteFacts } from './database/history.rewinds';
import { PostgresEvents } from './events/postgres.events';
import { PubSubEvents } from './events/pubsub.events';
import { repeatedLine } from './observability/log.throttle';
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
  store: DisbursementStore & RecordsReader & AuditCheckpointStore & BeneficiaryStore;
  runs: ReconciliationStore;
  events: DisbursementEvents;
  /** Client quotas: in memory for the one process of the embedded file, in PostgreSQL for replicas. */
  rateLimit: ClientRateLimit;
  /** Provider budgets (UPSTREAM_RATE_LIMIT_PER_MIN), in the database every replica shares. */
  budget: BudgetLedger;
  /** Relays to clients' own callbackUrl, in the same database. */
  relayQueue: RelayQueue;
  /** The latest moment the database went back in time (ms), if it ever did. */
  rewoundAt: () => number | undefined;
  /** Why the database was found at start to have gone back in time, when it was. */
  rewoundAtStart?: string;
  close(): Promise<void>;
}

/** How often retention and expired quotas are swept. */
const HOUSEKEEPING_MS = 60_000;
/** How often the embedded file's high-water mark is saved, and replicas look for a new rewind (db:restored). */
const HISTORY_MS = 1000;
/** How often the embedded file's WAL is looked at, and truncated when past its limit or the disk's free space. */
const CHECKPOINT_MS = 5_000;

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
    let history: ReturnType<typeof checkHistory>;
    try {
      history = checkHistory(handle.db, database.path, Date.now);
    } catch (error) {
      handle.close();
      throw error;
    }
    // One process per file: no rewind can be recorded while it runs.
    const rewoundAt = sqliteFacts(handle.db).latestRewind();
    const events = new PubSubEvents();
    const store = new SqliteStore({
      db: handle.db,
      chainKey,
      onChange: (record) => void events.publish(record),
      ...retention,
    });
    const housekeeping = every(HOUSEKEEPING_MS, async () => void store.prune(), logger);
    const marking = every(HISTORY_MS, async () => history.mark.save(), logger);
    const checkpoints = every(CHECKPOINT_MS, async () => handle.checkpoint(), logger);
    return {
      store,
      runs: new SqliteReconciliations(handle.db),
      events,
      rateLimit: ClientRateLimit.inMemory(config.clientRateLimitPerMin),
      budget: new SqliteBudgetLedger(handle.db),
      relayQueue: new SqliteRelayQueue(handle.db),
      rewoundAt: () => rewoundAt,
      rewoundAtStart: history.rewound,
      async close() {
        clearInterval(housekeeping);
        clearInterval(marking);
        clearInterval(checkpoints);
        await events.close();
        // A mark that cannot be written (its folder gone) must not stop a shutdown: the next start says so.
        try {
          history.mark.save();
        } catch (error) {
          logger.warn({ err: error }, 'the high-water mark of the database file could not be saved');
        }
        handle.close();
      },
    };
  }
  const outageLine = repeatedLine(logger, 'warn', 'database unavailable: answering SERVICE_UNAVAILABLE');
  const onOutage = (error: unknown) => {
    metrics.storeErrors.inc({ kind: 'outage' });
    outageLine({ err: error });
  };
  const pool = await openPostgres(database.url, { onError: onOutage, ownerUrl: config.databaseOwnerUrl });
  const events = new PostgresEvents({ url: database.url, pool, onError: onOutage });
  const store = new PostgresStore({ pool, chainKey, onOutage, ...retention });
  const rateLimit = ClientRateLimit.inPostgres(pool, config.clientRateLimitPerMin);
  const housekeeping = every(HOUSEKEEPING_MS, async () => void (await store.prune()), logger);
  // Read at start and then every second, so a db:restored run beside live replicas reaches them all.
  let rewoundAt = await postgresLatestRewind(pool);
  const rewinds = every(
    HISTORY_MS,
    async () => {
      rewoundAt = await postgresLatestRewind(pool).catch(() => rewoundAt);
    },
    logger,
  );
  return {
    store,
    runs: new PostgresReconciliations(pool),
    events,
    rateLimit,
    budget: new PostgresBudgetLedger(pool),
    relayQueue: new PostgresRelayQueue(pool),
    rewoundAt: () => rewoundAt,
    async close() {
      clearInterval(housekeeping);
      clearInterval(rewinds);
      await events.close();
      await pool.end();
    },
  };
}

/** A timer that never keeps the process alive, whose failures are logged (as repeated lines), not thrown. */
function every(ms: number, work: () => Promise<void>, logger: Logger): NodeJS.Timeout {
  const failed = repeatedLine(logger, 'warn', 'housekeeping failed; tried again later');
  const timer = setInterval(() => {
    work().catch((error: unknown) => failed({ err: error }));
  }, ms);
  timer.unref();
  return timer;
}
