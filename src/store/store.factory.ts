import { ClientRateLimit } from '../auth/client.rate-limit';
import { Config } from '../config';
import { DisbursementEvents, DisbursementStore } from '../disbursements/disbursement.ports';
import { PubSubEvents } from '../events/pubsub.events';
import { RedisEvents } from '../events/redis.events';
import { Logger } from '../observability/logger';
import { MemoryStore } from './memory.store';
import { closeRedis, connectRedis } from './redis.connection';
import { RedisStore } from './redis.store';

export interface Storage {
  store: DisbursementStore;
  events: DisbursementEvents & { pubSub: PubSubEvents['pubSub'] };
  /** Client quotas live where the rest of the shared state does. */
  rateLimit: ClientRateLimit;
  close(): Promise<void>;
}

/** In memory for one process; Redis (shared by replicas) when REDIS_URL is set. */
export function createStorage(config: Config, logger: Logger): Storage {
  if (!config.redisUrl) {
    const store = new MemoryStore({ retentionMs: config.retentionSeconds * 1000, maxRecords: config.memoryMaxRecords });
    const events = new PubSubEvents();
    return {
      store,
      events,
      rateLimit: ClientRateLimit.inMemory(config.clientRateLimitPerMin),
      close: async () => {
        await events.close();
        await store.close();
      },
    };
  }
  const prefix = config.redisKeyPrefix;
  const onError = (error: Error) => logger.warn({ err: error }, 'redis error');
  const store = new RedisStore({ url: config.redisUrl, prefix, retentionSeconds: config.retentionSeconds, onError });
  const events = new RedisEvents({ url: config.redisUrl, prefix, onError });
  const quotaClient = connectRedis(config.redisUrl, 'store', onError);
  return {
    store,
    events,
    rateLimit: ClientRateLimit.inRedis(quotaClient, prefix, config.clientRateLimitPerMin),
    close: async () => {
      await Promise.all([events.close(), store.close(), closeRedis(quotaClient)]);
    },
  };
}
