import { Config } from '../config';
import { Logger } from '../observability/logger';
import { MemoryRelayQueue } from './memory.relay-queue';
import { RedisRelayQueue } from './redis.relay-queue';
import { RelayQueue } from './relay.queue';

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
