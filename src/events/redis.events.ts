import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Disbursement } from '../disbursements/disbursement.model';
import {
  closeRedis,
  connectRedis,
  pingRedis,
  RedisClient,
  RedisErrorHandler,
  RedisTarget,
} from '../redis/redis.connection';
import { PubSubEvents } from './pubsub.events';
import { ChannelTarget, createShardedEventTarget } from './redis.channels';

export interface RedisEventsOptions {
  /** A `redis://` URL, or the nodes of a Redis Cluster (then sharded pub/sub). */
  redis: RedisTarget;
  /** Starts every channel, as it starts every key: gateways with different prefixes do not hear each other. */
  prefix: string;
  onError?: RedisErrorHandler;
}

type Target = ChannelTarget<CustomEvent<Disbursement>>;

/**
 * The channel of a PubSub topic (`disbursement:<merchant>:<reference>` or `merchant:<merchant>`):
 * under the prefix, with the merchant as hash tag like its keys, so that in a cluster a merchant's
 * channels live on the shard of its slot. Merchant ids are letters, digits, '_' and '-' only.
 */
export function channelOf(prefix: string, topic: string): string {
  const [kind, merchantId, ...rest] = topic.split(':');
  return `${prefix}{${merchantId}}:${kind}${rest.length > 0 ? `:${rest.join(':')}` : ''}`;
}

function underPrefix(target: Target, prefix: string): Target {
  return {
    addEventListener: (type, callback) => target.addEventListener(channelOf(prefix, type), callback),
    removeEventListener: (type, callback) => target.removeEventListener(channelOf(prefix, type), callback),
    dispatchEvent: (event) =>
      target.dispatchEvent(new CustomEvent(channelOf(prefix, event.type), { detail: event.detail })),
  };
}

/**
 * The yoga target calls publish, subscribe and unsubscribe without awaiting them, so a rejection
 * (Redis away) would be unhandled and end the process: this client reports it instead. Failures
 * of a client already closed are shutdown, not news.
 */
function reportingFailures<C extends RedisClient>(client: C, onError: RedisErrorHandler): C {
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
  private readonly publisher: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly prefix: string;
  private readonly sharded: boolean;

  constructor(options: RedisEventsOptions) {
    const onError = options.onError ?? (() => undefined);
    const publisher = connectRedis(options.redis, 'publisher', onError);
    const subscriber = connectRedis(options.redis, 'subscriber', onError);
    const sharded = typeof options.redis !== 'string';
    const target: Target = sharded
      ? createShardedEventTarget<Disbursement>(publisher, subscriber, onError)
      : createRedisEventTarget<CustomEvent<Disbursement>>({
          publishClient: reportingFailures(publisher, onError),
          subscribeClient: reportingFailures(subscriber, onError),
        });
    super({ eventTarget: underPrefix(target, options.prefix) });
    this.publisher = publisher;
    this.subscriber = subscriber;
    this.prefix = options.prefix;
    this.sharded = sharded;
  }

  /**
   * The target sends (S)SUBSCRIBE without awaiting it. Redis answers commands on a connection in
   * order, so once our own subscription to the same channel is acknowledged, the watcher's is active.
   */
  override async listening(merchantId: string, referenceId: string): Promise<void> {
    await this.subscribed(channelOf(this.prefix, `disbursement:${merchantId}:${referenceId}`));
  }

  override async merchantListening(merchantId: string): Promise<void> {
    await this.subscribed(channelOf(this.prefix, `merchant:${merchantId}`));
  }

  private async subscribed(channel: string): Promise<void> {
    if (this.sharded) await this.subscriber.ssubscribe(channel);
    else await this.subscriber.subscribe(channel);
  }

  override async healthy(): Promise<boolean> {
    return pingRedis(this.publisher);
  }

  override async close(): Promise<void> {
    await Promise.all([closeRedis(this.publisher), closeRedis(this.subscriber)]);
  }
}
