import { ClientRateLimit } from './auth/client.rate-limit';
import { Config } from './config';
import { DisbursementEvents, DisbursementStore } from './disbursements/disbursement.ports';
import { PubSubEvents } from './events/pubsub.events';
import { RedisEvents } from './events/redis.events';
import { throttle } from './observability/log.throttle';
import { Logger } from './observability/logger';
import { GatewayMetrics } from './observability/metrics';
import { MemoryStore } from './store/memory.store';
import { classifyingFailures, closeRedis, connectRedis, FailureHandlers } from './redis/redis.connection';
import { RedisStore } from './store/redis.store';
import { MemoryBudgetLedger } from './upstream/memory.budget';
import { BudgetLedger } from './upstream/provider.budget';
import { RedisBudgetLedger } from './upstream/redis.budget';
import { MemoryRelayQueue } from './relay/memory.relay-queue';
import { RedisRelayQueue } from './relay/redis.relay-queue';
import { RelayQueue } from './relay/relay.queue';

export interface Storage {
  store: DisbursementStore;
  events: DisbursementEvents & { pubSub: PubSubEvents['pubSub'] };
  /** Client quotas live where the rest of the shared state does. */
  rateLimit: ClientRateLimit;
  /** Provider budgets (UPSTREAM_RATE_LIMIT_PER_MIN), shared by replicas like the quotas. */
  budget: BudgetLedger;
  close(): Promise<void>;
}

/** Outage lines: at most 5 a minute, however many requests meet the outage. */
const OUTAGE_LOG = { max: 5, windowMs: 60_000 };

/**
 * What a failed Redis command tells the operator: an outage (each one answered SERVICE_UNAVAILABLE)
 * is logged with its cause, a few lines a minute; a fault is counted here and logged once, at
 * error level, where it is masked (the GraphQL error formatter, the reconciler, the callback receiver).
 */
function redisFailures(logger: Logger, metrics: GatewayMetrics): FailureHandlers {
  const outageLine = throttle(OUTAGE_LOG.max, OUTAGE_LOG.windowMs);
  return {
    onOutage(error) {
      metrics.storeErrors.inc({ kind: 'outage' });
      const { pass, suppressed } = outageLine();
      if (pass)
        logger.warn(
          { err: error, ...(suppressed > 0 && { suppressed }) },
          'redis unavailable: answering SERVICE_UNAVAILABLE',
        );
    },
    onFault() {
      metrics.storeErrors.inc({ kind: 'fault' });
    },
  };
}

/** In memory for one process; Redis (shared by replicas) when REDIS_URL or REDIS_CLUSTER_NODES is set. */
export function createStorage(config: Config, logger: Logger, metrics: GatewayMetrics): Storage {
  if (!config.redis) {
    const store = new MemoryStore({
      retentionMs: config.retentionSeconds * 1000,
      maxRecords: config.memoryMaxRecords,
      eventRetentionMs: config.eventRetentionSeconds * 1000,
    });
    const events = new PubSubEvents();
    return {
      store,
      events,
      rateLimit: ClientRateLimit.inMemory(config.clientRateLimitPerMin),
      budget: new MemoryBudgetLedger(),
      close: async () => {
        await events.close();
        await store.close();
      },
    };
  }
  const { redis } = config;
  const prefix = config.redisKeyPrefix;
  // Connection attempts failing while Redis is away: ioredis reports each one.
  const connectionLine = throttle(OUTAGE_LOG.max, OUTAGE_LOG.windowMs);
  const onError = (error: Error) => {
    const { pass, suppressed } = connectionLine();
    if (pass) logger.warn({ err: error, ...(suppressed > 0 && { suppressed }) }, 'redis connection error');
  };
  const failures = redisFailures(logger, metrics);
  const { retentionSeconds, eventRetentionSeconds } = config;
  const store = new RedisStore({ redis, prefix, retentionSeconds, eventRetentionSeconds, onError, failures });
  const events = new RedisEvents({ redis, prefix, onError });
  const quotaClient = connectRedis(redis, 'store', onError);
  // Quotas and budgets share one connection, and so one view of its failures.
  const quotas = classifyingFailures(quotaClient, failures);
  return {
    store,
    events,
    rateLimit: ClientRateLimit.inRedis(quotas, prefix, config.clientRateLimitPerMin),
    budget: new RedisBudgetLedger(quotas, prefix),
    close: async () => {
      await Promise.all([events.close(), store.close(), closeRedis(quotaClient)]);
    },
  };
}

/** Relay work lives where the records do: in memory for one process, in Redis for replicas. */
export function createRelayQueue(config: Config, logger: Logger): RelayQueue {
  if (!config.redis) return new MemoryRelayQueue();
  return new RedisRelayQueue({
    redis: config.redis,
    prefix: config.redisKeyPrefix,
    retentionSeconds: config.retentionSeconds,
    onError: (error) => logger.warn({ err: error }, 'redis error'),
  });
}
