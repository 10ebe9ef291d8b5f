import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';
import { Disbursement } from '../disbursements/disbursement.model';
import { closeRedis, connectRedis, pingRedis, RedisErrorHandler } from '../store/redis.connection';
import { PubSubEvents } from './pubsub.events';

export interface RedisEventsOptions {
  url: string;
  /** Starts every channel, as it starts every key: gateways with different prefixes do not hear each other. */
  prefix: string;
  onError?: RedisErrorHandler;
}

type Target = ReturnType<typeof createRedisEventTarget<CustomEvent<Disbursement>>>;

/** The yoga target uses each topic (`disbursement:<merchant>:<reference>`, `merchant:<merchant>`) as the channel name. */
function underPrefix(target: Target, prefix: string): Target {
  return {
    addEventListener: (type, callback, options) => target.addEventListener(`${prefix}${type}`, callback, options),
    removeEventListener: (type, callback, options) => target.removeEventListener(`${prefix}${type}`, callback, options),
    dispatchEvent: (event) => target.dispatchEvent(new CustomEvent(`${prefix}${event.type}`, { detail: event.detail })),
  };
}

/**
 * The yoga target calls publish, subscribe and unsubscribe without awaiting them, so a rejection
 * (Redis away) would be unhandled and end the process: this client reports it instead. Failures
 * of a client already closed are shutdown, not news.
 */
function reportingFailures(client: Redis, onError: RedisErrorHandler): Redis {
  const unawaited = new Set<PropertyKey>(['publish', 'subscribe', 'unsubscribe']);
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!unawaited.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = Reflect.apply(value, target, args) as Promise<unknown>;
        result.catch((error: unknown) => {
          if (target.status !== 'end') onError(error instanceof Error ? error : new Error(String(error)));
        });
        return result;
      };
    },
  });
}

/**
 * Status changes over Redis pub/sub, so a watcher connected to one replica hears changes made on
 * any other. Owns its two connections: a subscribing connection can send nothing else.
 */
export class RedisEvents extends PubSubEvents {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;

  constructor(options: RedisEventsOptions) {
    const onError = options.onError ?? (() => undefined);
    const publisher = connectRedis(options.url, 'publisher', onError);
    const subscriber = connectRedis(options.url, 'subscriber', onError);
    const target = createRedisEventTarget<CustomEvent<Disbursement>>({
      publishClient: reportingFailures(publisher, onError),
      subscribeClient: reportingFailures(subscriber, onError),
    });
    super({ eventTarget: underPrefix(target, options.prefix) });
    this.publisher = publisher;
    this.subscriber = subscriber;
    this.prefix = options.prefix;
  }

  /**
   * The yoga target sends SUBSCRIBE without awaiting it. Redis answers commands on a connection in
   * order, so once our own SUBSCRIBE of the same channel is acknowledged, the watcher's is active.
   */
  override async listening(merchantId: string, referenceId: string): Promise<void> {
    await this.subscriber.subscribe(`${this.prefix}disbursement:${merchantId}:${referenceId}`);
  }

  override async healthy(): Promise<boolean> {
    return pingRedis(this.publisher);
  }

  override async close(): Promise<void> {
    await Promise.all([closeRedis(this.publisher), closeRedis(this.subscriber)]);
  }
}
