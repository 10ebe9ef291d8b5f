import { ClientRateLimit } from '../auth/client.rate-limit';
import { PostgresTarget } from '../database/database.target';
import { postgresLatestRewind } from '../database/history.rewinds';
import { openPostgres } from '../database/postgres.open';
import { PostgresEvents } from '../events/postgres.events';
import { repeatedLine } from '../observability/log.throttle';
import { PostgresRelayQueue } from '../relay/postgres.relay-queue';
import { PostgresReconciliations } from '../store/postgres.reconciliations';
import { postgresStore } from '../store/postgres.engine';
import { PostgresBudgetLedger } from '../upstream/postgres.budget';
import { every, HISTORY_MS, HOUSEKEEPING_MS } from './housekeeping.timer';
import { retentionOf, Storage, StorageNeeds } from './storage.port';

/** A PostgreSQL database: any number of replicas, events over LISTEN/NOTIFY, quotas in the database. */
export async function openPostgresStorage(target: PostgresTarget, needs: StorageNeeds): Promise<Storage> {
  const { config, logger, metrics, entryKey } = needs;
  const outageLine = repeatedLine(logger, 'warn', 'database unavailable: answering SERVICE_UNAVAILABLE');
  const onOutage = (error: unknown) => {
    metrics.storeErrors.inc({ kind: 'outage' });
    outageLine({ err: error });
  };
  const pool = await openPostgres(target.url, { onError: onOutage, ownerUrl: config.databaseOwnerUrl });
  const events = new PostgresEvents({ url: target.url, pool, onError: onOutage });
  const store = postgresStore({ pool, entryKey, onOutage, ...retentionOf(config) });
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
