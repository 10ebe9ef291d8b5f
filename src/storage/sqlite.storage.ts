import { ClientRateLimit } from '../auth/client.rate-limit';
import { SqliteTarget } from '../database/database.target';
import { sqliteFacts } from '../database/history.rewinds';
import { checkHistory } from '../database/sqlite.mark';
import { openSqlite } from '../database/sqlite.open';
import { PubSubEvents } from '../events/pubsub.events';
import { SqliteRelayQueue } from '../relay/sqlite.relay-queue';
import { SqliteReconciliations } from '../store/sqlite.reconciliations';
import { sqliteStore } from '../store/sqlite.engine';
import { SqliteBudgetLedger } from '../upstream/sqlite.budget';
import { every, HISTORY_MS, HOUSEKEEPING_MS } from './housekeeping.timer';
import { retentionOf, Storage, StorageNeeds } from './storage.port';

/**
 * How often the embedded file's WAL is looked at with no traffic, truncated when past its limit or
 * half the disk's free space, and writes stopped or resumed as a pinning reader holds it past its
 * bound or lets go (every group commit looks first too: sqlite.wal.ts).
 */
const CHECKPOINT_MS = 1_000;

/** The embedded file: one process, so its events and client quotas live in memory. */
export async function openSqliteStorage(target: SqliteTarget, needs: StorageNeeds): Promise<Storage> {
  const { config, logger, entryKey } = needs;
  const handle = openSqlite(target.path);
  let history: Awaited<ReturnType<typeof checkHistory>>;
  try {
    history = await checkHistory(handle, target.path, Date.now);
  } catch (error) {
    handle.close();
    throw error;
  }
  // One process per file: no rewind can be recorded while it runs.
  const rewoundAt = sqliteFacts(handle.db).latestRewind();
  const events = new PubSubEvents();
  const store = sqliteStore({
    file: handle,
    entryKey,
    onChange: (record) => void events.publish(record),
    ...retentionOf(config),
  });
  const housekeeping = every(HOUSEKEEPING_MS, async () => void (await store.prune()), logger);
  let told = false;
  const marking = every(
    HISTORY_MS,
    async () => {
      const problem = handle.problem();
      if (problem !== undefined && !told) logger.error(problem);
      told = problem !== undefined;
      history.mark.save();
    },
    logger,
  );
  const checkpoints = every(CHECKPOINT_MS, async () => handle.checkpoint(), logger);
  return {
    store,
    runs: new SqliteReconciliations(handle),
    events,
    rateLimit: ClientRateLimit.inMemory(config.clientRateLimitPerMin),
    budget: new SqliteBudgetLedger(handle),
    relayQueue: new SqliteRelayQueue(handle),
    rewoundAt: () => rewoundAt,
    rewoundAtStart: history.rewound,
    problem: () => handle.problem(),
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
