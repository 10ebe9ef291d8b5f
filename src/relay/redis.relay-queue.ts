import { randomUUID } from 'node:crypto';
import { keyPart } from '../store/redis.store';
import { closeRedis, connectRedis, firstAttempt, RedisClient, RedisErrorHandler, RedisTarget } from '../store/redis.connection';
import { LeasedRelayJob, RelayJob, RelayQueue } from './relay.queue';

export interface RedisRelayQueueOptions {
  redis: RedisTarget;
  prefix: string;
  /** How long a job is kept after its last change; a job older than the records it relays has nothing left to say. */
  retentionSeconds: number;
  onError?: RedisErrorHandler;
}

/*
 * A job is a hash `<prefix>{relay}:job:<merchantId>:<referenceId>` {job: JSON, attempts, lease}; the
 * sorted set `<prefix>{relay}:due` scores each job key by when it is next due. Taking a lease moves the
 * score to the lease's end, so a job whose holder died comes due again by itself. The `{relay}`
 * hash tag keeps the whole queue in one Redis Cluster slot, as the lease script reads many jobs.
 * The scripts are sent by ioredis `defineCommand` (EVALSHA, and EVAL when a server lacks them).
 */

/** KEYS: job, due. ARGV: JSON, due ms, TTL. Adds the job unless one exists. */
const enqueueScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'job', ARGV[1], 'attempts', 0, 'lease', '')
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
`;

/**
 * KEYS: due. ARGV: now ms, limit, lease end ms, lease token. Leases up to `limit` due jobs and
 * returns {JSON, attempts, lease} for each; entries whose job expired are dropped.
 */
const leaseScript = `
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
`;

/** KEYS: job, due. ARGV: lease, attempts, due ms, TTL. Only under the caller's own lease. */
const retryScript = `
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'attempts', ARGV[2], 'lease', '')
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`;

/** KEYS: job, due. ARGV: lease. Only under the caller's own lease. */
const finishScript = `
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`;

interface RelayScripts {
  pgwRelayEnqueue(job: string, due: string, json: string, dueMs: string, ttl: string): Promise<number>;
  pgwRelayLease(due: string, nowMs: string, limit: string, leaseEndMs: string, token: string): Promise<unknown>;
  pgwRelayRetry(job: string, due: string, lease: string, attempts: string, dueMs: string, ttl: string): Promise<number>;
  pgwRelayFinish(job: string, due: string, lease: string): Promise<number>;
}

/** Relay work in Redis, shared by every replica: whichever is alive sends what is due. */
export class RedisRelayQueue implements RelayQueue {
  private readonly client: RedisClient & RelayScripts;
  private readonly started: Promise<void>;
  private readonly dueKey: string;
  private readonly ttl: string;

  constructor(private readonly opts: RedisRelayQueueOptions) {
    const client = connectRedis(opts.redis, 'store', opts.onError);
    client.defineCommand('pgwRelayEnqueue', { numberOfKeys: 2, lua: enqueueScript });
    client.defineCommand('pgwRelayLease', { numberOfKeys: 1, lua: leaseScript });
    client.defineCommand('pgwRelayRetry', { numberOfKeys: 2, lua: retryScript });
    client.defineCommand('pgwRelayFinish', { numberOfKeys: 2, lua: finishScript });
    this.client = client as RedisClient & RelayScripts;
    this.started = firstAttempt(this.client);
    this.dueKey = `${opts.prefix}{relay}:due`;
    this.ttl = String(opts.retentionSeconds);
  }

  async enqueue(job: RelayJob, at: Date): Promise<void> {
    await (await this.redis()).pgwRelayEnqueue(this.keyOf(job), this.dueKey, JSON.stringify(job), String(at.getTime()), this.ttl);
  }

  async lease(now: Date, limit: number, leaseUntil: Date): Promise<LeasedRelayJob[]> {
    const rows = (await (
      await this.redis()
    ).pgwRelayLease(this.dueKey, String(now.getTime()), String(limit), String(leaseUntil.getTime()), randomUUID())) as [
      string,
      string,
      string,
    ][];
    return rows.map(([json, attempts, lease]) => ({ ...(JSON.parse(json) as RelayJob), attempts: Number(attempts), lease }));
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    await (
      await this.redis()
    ).pgwRelayRetry(this.keyOf(job), this.dueKey, job.lease, String(job.attempts + 1), String(at.getTime()), this.ttl);
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    await (await this.redis()).pgwRelayFinish(this.keyOf(job), this.dueKey, job.lease);
  }

  async close(): Promise<void> {
    await closeRedis(this.client);
  }

  private async redis(): Promise<RedisClient & RelayScripts> {
    await this.started;
    return this.client;
  }

  private keyOf(job: RelayJob): string {
    return `${this.opts.prefix}{relay}:job:${keyPart(job.merchantId)}:${keyPart(job.referenceId)}`;
  }
}
