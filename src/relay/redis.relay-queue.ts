import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { closeRedis, connectRedis, firstAttempt, RedisErrorHandler } from '../store/redis.connection';
import { LuaScript } from '../store/redis.scripts';
import { LeasedRelayJob, RelayJob, RelayQueue } from './relay.queue';

export interface RedisRelayQueueOptions {
  url: string;
  prefix: string;
  /** How long a job is kept after its last change; a job older than the records it relays has nothing left to say. */
  retentionSeconds: number;
  onError?: RedisErrorHandler;
}

/** ':' separates the parts of a key, so ids escape it (and the escape character itself), as the store's keys do. */
const keyPart = (id: string) => id.replace(/%/g, '%25').replace(/:/g, '%3A');

/*
 * A job is a hash `<prefix>relay:<merchantId>:<referenceId>` {job: JSON, attempts, lease}; the
 * sorted set `<prefix>relay-due` scores each job key by when it is next due. Taking a lease moves the
 * score to the lease's end, so a job whose holder died comes due again by itself.
 */

/** KEYS: job, due. ARGV: JSON, due ms, TTL. Adds the job unless one exists. */
const enqueueScript = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'job', ARGV[1], 'attempts', 0, 'lease', '')
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
`);

/**
 * KEYS: due. ARGV: now ms, limit, lease end ms, lease token. Leases up to `limit` due jobs and
 * returns {JSON, attempts, lease} for each; entries whose job expired are dropped.
 */
const leaseScript = new LuaScript(`
local keys = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i, key in ipairs(keys) do
  local fields = redis.call('HMGET', key, 'job', 'attempts')
  if fields[1] then
    local lease = ARGV[4] .. ':' .. i
    redis.call('HSET', key, 'lease', lease)
    redis.call('ZADD', KEYS[1], ARGV[3], key)
    table.insert(out, { fields[1], fields[2], lease })
  else
    redis.call('ZREM', KEYS[1], key)
  end
end
return out
`);

/** KEYS: job, due. ARGV: lease, attempts, due ms, TTL. Only under the caller's own lease. */
const retryScript = new LuaScript(`
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'attempts', ARGV[2], 'lease', '')
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`);

/** KEYS: job, due. ARGV: lease. Only under the caller's own lease. */
const finishScript = new LuaScript(`
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`);

/** Relay work in Redis, shared by every replica: whichever is alive sends what is due. */
export class RedisRelayQueue implements RelayQueue {
  private readonly client: Redis;
  private readonly started: Promise<void>;
  private readonly dueKey: string;
  private readonly ttl: string;

  constructor(private readonly opts: RedisRelayQueueOptions) {
    this.client = connectRedis(opts.url, 'store', opts.onError);
    this.started = firstAttempt(this.client);
    this.dueKey = `${opts.prefix}relay-due`;
    this.ttl = String(opts.retentionSeconds);
  }

  async enqueue(job: RelayJob, at: Date): Promise<void> {
    await enqueueScript.run(await this.redis(), [this.keyOf(job), this.dueKey], [JSON.stringify(job), String(at.getTime()), this.ttl]);
  }

  async lease(now: Date, limit: number, leaseUntil: Date): Promise<LeasedRelayJob[]> {
    const rows = (await leaseScript.run(
      await this.redis(),
      [this.dueKey],
      [String(now.getTime()), String(limit), String(leaseUntil.getTime()), randomUUID()],
    )) as [string, string, string][];
    return rows.map(([json, attempts, lease]) => ({ ...(JSON.parse(json) as RelayJob), attempts: Number(attempts), lease }));
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    await retryScript.run(
      await this.redis(),
      [this.keyOf(job), this.dueKey],
      [job.lease, String(job.attempts + 1), String(at.getTime()), this.ttl],
    );
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    await finishScript.run(await this.redis(), [this.keyOf(job), this.dueKey], [job.lease]);
  }

  async close(): Promise<void> {
    await closeRedis(this.client);
  }

  private async redis(): Promise<Redis> {
    await this.started;
    return this.client;
  }

  private keyOf(job: RelayJob): string {
    return `${this.opts.prefix}relay:${keyPart(job.merchantId)}:${keyPart(job.referenceId)}`;
  }
}
