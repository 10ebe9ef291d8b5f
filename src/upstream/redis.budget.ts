import { BudgetLedger, Take } from './provider.budget';
import { firstAttempt, RedisClient } from '../redis/redis.connection';
import { keyPart } from '../redis/redis.keys';

/**
 * One budget hash: `a` all calls left, `r` reads left, `t` when they were counted (ms), `p` paused
 * until (ms). Time is the server's own (TIME), so replicas with drifting clocks share one bucket.
 * KEYS[1] the hash; ARGV[1] per minute, ARGV[2] '1' for a read. Returns {taken, waitMs, paused}.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 'a', 'r', 't', 'p')
local paused = tonumber(h[4] or '0')
if paused > now then return {0, paused - now, 1} end
local cap = tonumber(ARGV[1])
if cap <= 0 then return {1, 0, 0} end
local half = cap / 2
local elapsed = math.max(0, now - tonumber(h[3] or now))
local all = math.min(cap, tonumber(h[1] or cap) + elapsed * cap / 60000)
local reads = math.min(half, tonumber(h[2] or half) + elapsed * half / 60000)
-- A read needs a token from the shared bucket and one from its own half, and waits for whichever refills last.
local wait = 0
if all < 1 then wait = math.ceil((1 - all) * 60000 / cap) end
local read = ARGV[2] == '1'
if read and reads < 1 then wait = math.max(wait, math.ceil((1 - reads) * 60000 / half)) end
if wait > 0 then return {0, wait, 0} end
if read then reads = reads - 1 end
redis.call('HSET', KEYS[1], 'a', tostring(all - 1), 'r', tostring(reads), 't', now)
redis.call('PEXPIRE', KEYS[1], 120000 + math.max(0, paused - now))
return {1, 0, 0}
`;

/** KEYS[1] the hash; ARGV[1] pause ms. A pause only ever grows. */
const PAUSE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('HGET', KEYS[1], 'p') or '0') then redis.call('HSET', KEYS[1], 'p', untilMs) end
redis.call('PEXPIRE', KEYS[1], 120000 + tonumber(ARGV[1]))
`;

interface BudgetScripts {
  pgwBudgetTake(key: string, perMinute: number, read: '1' | '0'): Promise<number[]>;
  pgwBudgetPause(key: string, ms: number): Promise<unknown>;
}

/**
 * Provider budgets shared by every replica. Each budget and each claim is one key with its own hash
 * tag (`{b:...}`), and every script touches one key, so a Redis Cluster serves them from any slot.
 * The scripts go by ioredis `defineCommand` (EVALSHA, not their text on every call).
 */
export class RedisBudgetLedger implements BudgetLedger {
  private readonly client: RedisClient & BudgetScripts;
  private readonly started: Promise<void>;

  constructor(
    client: RedisClient,
    private readonly prefix: string,
  ) {
    client.defineCommand('pgwBudgetTake', { numberOfKeys: 1, lua: TAKE });
    client.defineCommand('pgwBudgetPause', { numberOfKeys: 1, lua: PAUSE });
    this.client = client as RedisClient & BudgetScripts;
    // The client queues nothing while connecting: the first calls wait for its first attempt.
    this.started = client.status === 'ready' ? Promise.resolve() : firstAttempt(client);
  }

  async take(key: string, perMinute: number, read: boolean): Promise<Take> {
    await this.started;
    const [taken, waitMs, paused] = await this.client.pgwBudgetTake(this.key(key), perMinute, read ? '1' : '0');
    return taken === 1 ? { taken: true } : { taken: false, waitMs, paused: paused === 1 };
  }

  async pause(key: string, ms: number): Promise<void> {
    await this.started;
    await this.client.pgwBudgetPause(this.key(key), Math.ceil(ms));
  }

  async claim(key: string, ms: number): Promise<boolean> {
    await this.started;
    return (await this.client.set(`${this.prefix}{c:${keyPart(key)}}`, '1', 'PX', ms, 'NX')) === 'OK';
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private key(key: string): string {
    return `${this.prefix}{b:${keyPart(key)}}`;
  }
}
