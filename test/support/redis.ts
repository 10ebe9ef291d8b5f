import { randomUUID } from 'node:crypto';
import { createServer, connect, Socket } from 'node:net';
import { Redis } from 'ioredis';
import { closeRedis } from '../../src/redis/redis.connection';

/** The Redis the tests may use; unset: Redis tests are skipped. */
export function redisUrl(): string | undefined {
  return process.env.REDIS_URL || undefined;
}

/** `redisUrl()`, for code that runs only inside `describeRedis`. */
export function requireRedisUrl(): string {
  const url = redisUrl();
  if (!url) throw new Error('REDIS_URL is not set');
  return url;
}

// Jest loads this module afresh for every test file, so a flag here would warn once per file;
// the stderr stream is shared by all the files a worker runs.
const WARNED: unique symbol = Symbol.for('payout-gateway.redis-tests-skipped');

function warnSkippedOnce(): void {
  const stderr: NodeJS.WriteStream & { [WARNED]?: boolean } = process.stderr;
  if (stderr[WARNED]) return;
  stderr[WARNED] = true;
  stderr.write('REDIS_URL is not set: Redis tests skipped\n');
}

/** `describe` with REDIS_URL set, and then failing (never skipping) when that Redis does not answer. */
export function describeRedis(name: string, fn: () => void): void {
  const url = redisUrl();
  if (!url) {
    warnSkippedOnce();
    describe.skip(name, fn);
    return;
  }
  describe(name, () => {
    beforeAll(async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      let cause: unknown;
      client.on('error', (error) => (cause = error));
      try {
        await client.connect();
        await client.ping();
      } catch (error) {
        throw new Error(`REDIS_URL is set but Redis at ${url} does not answer: ${String(cause ?? error)}`, {
          cause: error,
        });
      } finally {
        await closeRedis(client);
      }
    });
    fn();
  });
}

export interface TestPrefix {
  /** `test:<uuid>:`: every key and channel of one test starts with it. */
  prefix: string;
  /** Deletes every key under the prefix (SCAN + DEL), leaving other tests' keys alone. */
  cleanup(): Promise<void>;
}

export function uniquePrefix(): TestPrefix {
  const prefix = `test:${randomUUID()}:`;
  return {
    prefix,
    async cleanup() {
      await withRedis(async (client) => {
        let cursor = '0';
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length > 0) await client.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      });
    },
  };
}

/** Runs `use` with a plain client of REDIS_URL, for looking behind the store's back; closes it after. */
export async function withRedis<T>(use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(requireRedisUrl(), { maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    return await use(client);
  } finally {
    await closeRedis(client);
  }
}

/** Resolves once exactly `count` subscriptions (connection × channel) exist on channels under `prefix`. */
export async function subscriptionsUnder(prefix: string, count: number): Promise<void> {
  await withRedis(async (client) => {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const channels = (await client.pubsub('CHANNELS', `${prefix}*`)).map(String);
      const counts = channels.length === 0 ? [] : await client.pubsub('NUMSUB', ...channels);
      const total = counts.filter((_, i) => i % 2 === 1).reduce<number>((sum, n) => sum + Number(n), 0);
      if (total === count) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`never ${count} subscriptions under ${prefix}`);
  });
}

export interface RedisProxy {
  /** REDIS_URL with its address replaced by the proxy's. */
  url: string;
  /** Drops every connection and refuses new ones, as a Redis that went away. */
  down(): Promise<void>;
  /** Accepts connections again on the same port. */
  up(): Promise<void>;
}

/** A TCP proxy in front of REDIS_URL, to take "Redis" away and bring it back without touching the real server. */
export async function startRedisProxy(): Promise<RedisProxy> {
  const target = new URL(requireRedisUrl());
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const port = await listen(0);
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    async down() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async up() {
      await listen(port);
    },
  };
}
