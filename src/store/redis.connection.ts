import { Redis, RedisOptions } from 'ioredis';
import { StoreUnavailableError } from '../disbursements/disbursement.ports';

/** Told of each failed connection attempt (ioredis keeps retrying) and each publish or subscribe that failed. */
export type RedisErrorHandler = (error: Error) => void;

const roles = {
  /**
   * Nothing is queued while disconnected and nothing is resent after a reconnect: a call fails at
   * once, and a write whose caller was told it failed cannot land later when Redis comes back.
   */
  store: { enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, commandTimeout: 2000 },
  /** Queued only until the next connection attempt fails; a late publish is harmless, as watchers drop versions they have seen. */
  publisher: { maxRetriesPerRequest: 0 },
  /**
   * SUBSCRIBEs wait for Redis to come back: a dropped one would leave its watcher deaf for good.
   * No ready check: its INFO fails once a SUBSCRIBE queued during connect has put the connection
   * in subscriber mode, and ioredis then drops the connection with every subscription on it.
   */
  subscriber: { maxRetriesPerRequest: null, enableReadyCheck: false },
} satisfies Record<string, RedisOptions>;

export function connectRedis(url: string, role: keyof typeof roles, onError: RedisErrorHandler = () => undefined): Redis {
  const client = new Redis(url, {
    ...roles[role],
    connectTimeout: 2000,
    // disconnect() waits this long for a stream to close; one that died while reconnecting never
    // says so, and the default 2 s would hold the process open after close().
    disconnectTimeout: 100,
    // Keeps trying for as long as Redis is away, at most every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  // Without a listener ioredis prints every failed attempt to the console.
  client.on('error', onError);
  return client;
}

/** Settles once the first connection attempt does, whether it succeeded or not. */
export function firstAttempt(client: Redis): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      client.off('ready', settle);
      client.off('close', settle);
      resolve();
    };
    client.on('ready', settle);
    client.on('close', settle);
  });
}

/** Whether Redis answers a PING within `timeoutMs`. */
export async function pingRedis(client: Redis, timeoutMs = 1000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([client.ping().then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** QUIT lets replies in flight arrive; when Redis is away there is nothing to wait for. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // The connection dropped during QUIT: fall through and stop reconnecting.
    }
  }
  client.disconnect();
}

/**
 * The same client, whose failed commands reject with the domain's StoreUnavailableError, so the
 * gateway can tell "Redis is away" (nothing recorded, nothing sent) from a bug.
 */
export function failingAsUnavailable(client: Redis): Redis {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          throw new StoreUnavailableError(`redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        });
      };
    },
  });
}
