import { RedisClient, RedisErrorHandler } from '../redis/redis.connection';

/** A DOM-style event target whose events travel over Redis channels. */
export interface ChannelTarget<E extends CustomEvent> {
  addEventListener(type: string, callback: EventListenerOrEventListenerObject | null): void;
  removeEventListener(type: string, callback: EventListenerOrEventListenerObject | null): void;
  dispatchEvent(event: E): boolean;
}

type Listener = (event: CustomEvent) => void;

const listenerOf = (callback: EventListenerOrEventListenerObject): Listener =>
  ('handleEvent' in callback ? (e: Event) => callback.handleEvent(e) : callback) as Listener;

/**
 * The shape of `@graphql-yoga/redis-event-target`, over sharded pub/sub (SSUBSCRIBE, SPUBLISH):
 * in a Redis Cluster a channel then lives on the one shard that owns its hash slot, instead of
 * every message being copied to every node. One SSUBSCRIBE per channel, however many listeners.
 */
export function createShardedEventTarget<T>(
  publisher: RedisClient,
  subscriber: RedisClient,
  onError: RedisErrorHandler,
): ChannelTarget<CustomEvent<T>> {
  const listeners = new Map<string, Map<EventListenerOrEventListenerObject, Listener>>();
  const report = (error: unknown) => onError(error instanceof Error ? error : new Error(String(error)));
  subscriber.on('smessage', (channel: string, message: string) => {
    const forChannel = listeners.get(channel);
    if (!forChannel) return;
    const event = new CustomEvent(channel, { detail: JSON.parse(message) as T });
    for (const listener of forChannel.values()) listener(event);
  });
  return {
    addEventListener(type, callback) {
      if (!callback) return;
      let forChannel = listeners.get(type);
      if (!forChannel) {
        forChannel = new Map();
        listeners.set(type, forChannel);
        subscriber.ssubscribe(type).catch(report);
      }
      forChannel.set(callback, listenerOf(callback));
    },
    removeEventListener(type, callback) {
      const forChannel = listeners.get(type);
      if (!forChannel || !callback) return;
      forChannel.delete(callback);
      if (forChannel.size > 0) return;
      listeners.delete(type);
      subscriber.sunsubscribe(type).catch(report);
    },
    dispatchEvent(event) {
      publisher.spublish(event.type, JSON.stringify(event.detail)).catch(report);
      return true;
    },
  };
}
