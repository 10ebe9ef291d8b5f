import { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { StoreUnavailableError } from '../disbursements/disbursement.ports';

/** Told of each failed connection attempt (ioredis keeps retrying) and each publish or subscribe that failed. */
export type RedisErrorHandler = (error: Error) => void;

/** One Redis server (`redis://...`), or the nodes of a Redis Cluster to start from. */
export type RedisTarget = string | { cluster: readonly { host: string; port: number }[] };

export type RedisClient = Redis | Cluster;

const roles = {
  /**
   * Nothing is queued while disconnected and nothing is resent after a reconnect: a call fails at
   * once, and a write whose caller was told it failed cannot land later when Redis comes back.
   */
  store: {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: 2000,
  },
  /** Queued only until the next connection attempt fails; a late publish is harmless, as watchers drop versions they have seen. */
  publisher: { maxRetriesPerRequest: 0 },
  /**
   * SUBSCRIBEs wait for Redis to come back: a dropped one would leave its watcher deaf for good.
   * No ready check: its INFO fails once a SUBSCRIBE queued during connect has put the connection
   * in subscriber mode, and ioredis then drops the connection with every subscription on it.
   */
  subscriber: { maxRetriesPerRequest: null, enableReadyCheck: false },
} satisfies Record<string, RedisOptions>;

export type RedisRole = keyof typeof roles;

const common: RedisOptions = {
  connectTimeout: 2000,
  // disconnect() waits this long for a stream to close; one that died while reconnecting never
  // says so, and the default 2 s would hold the process open after close().
  disconnectTimeout: 100,
};

/** Keeps trying for as long as Redis is away, at most every 2 s. */
const retry = (attempt: number) => Math.min(attempt * 100, 2000);

export function connectRedis(
  target: RedisTarget,
  role: RedisRole,
  onError: RedisErrorHandler = () => undefined,
): RedisClient {
  const client = typeof target === 'string' ? connectOne(target, role) : connectCluster(target.cluster, role);
  // Without a listener ioredis prints every failed attempt to the console.
  client.on('error', onError);
  return client;
}

function connectOne(url: string, role: RedisRole): Redis {
  return new Redis(url, { ...common, ...roles[role], retryStrategy: retry });
}

function connectCluster(nodes: readonly { host: string; port: number }[], role: RedisRole): Cluster {
  const { enableOfflineQueue, enableReadyCheck, ...perNode } = roles[role] as RedisOptions;
  const options: ClusterOptions = {
    redisOptions: { ...common, ...perNode },
    clusterRetryStrategy: retry,
    // A slot that moves (failover, resharding) is followed this many times, then the call fails.
    maxRedirections: 8,
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(enableReadyCheck === undefined ? {} : { enableReadyCheck }),
    // Channels carry the merchant's hash tag: SSUBSCRIBE reaches the one shard that owns it.
    ...(role === 'subscriber' ? { shardedSubscribers: true } : {}),
  };
  return new Cluster([...nodes], options);
}

/** Settles once the first connection attempt does, whether it succeeded or not. */
export function firstAttempt(client: RedisClient): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      client.off('ready', settle);
      client.off('close', settle);
      client.off('end', settle);
      resolve();
    };
    client.on('ready', settle);
    client.on('close', settle);
    client.on('end', settle);
  });
}

/** Whether Redis answers a PING within `timeoutMs`. */
export async function pingRedis(client: RedisClient, timeoutMs = 1000): Promise<boolean> {
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
export async function closeRedis(client: RedisClient): Promise<void> {
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

/** Replies that mean "this server cannot serve right now", not "this command is wrong". */
const OUTAGE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN)\b/;

/**
 * Whether a failed call means Redis is away. Errors that are not replies come from the connection
 * (refused, closed, timed out, not writeable, retries used up, no cluster node reachable); a reply
 * is an outage only when it says the server is loading, read-only or without its master or slots.
 * Anything else (a script error, WRONGTYPE, OOM, a wrong call of ours) is a fault to fix.
 */
export function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // ioredis types its ReplyError as `any`; its name is what is stable.
  if (error.name === 'ReplyError') return OUTAGE_REPLIES.test(error.message);
  return true;
}

export interface FailureHandlers {
  /** Redis is away: the call is rejected with the domain's StoreUnavailableError. */
  onOutage(error: Error): void;
  /** Redis answered with an error that is not an outage: the call is rejected with that error. */
  onFault(error: Error): void;
}

/**
 * The same client, whose failed commands say what they mean: StoreUnavailableError when Redis is
 * away (nothing recorded, nothing sent), the error itself when it is a fault.
 */
export function classifyingFailures<C extends RedisClient>(client: C, handlers: FailureHandlers): C {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          const failure = error instanceof Error ? error : new Error(String(error));
          if (!isOutage(failure)) {
            handlers.onFault(failure);
            throw failure;
          }
          handlers.onOutage(failure);
          throw new StoreUnavailableError(`redis: ${failure.message}`, { cause: failure });
        });
      };
    },
  });
}
