import { randomUUID } from 'node:crypto';
import { keyPart } from '../redis/redis.keys';
import {
  closeRedis,
  connectRedis,
  firstAttempt,
  RedisClient,
  RedisErrorHandler,
  RedisTarget,
} from '../redis/redis.connection';
import { LeasedRelayJob, LeaseFairness, RelayJob, RelayQueue } from './relay.queue';

export interface RedisRelayQueueOptions {
  redis: RedisTarget;
  prefix: string;
  /** How long a job is kept after its last change; a job older than the records it relays has nothing left to say. */
  retentionSeconds: number;
  onError?: RedisErrorHandler;
}

/*
 * A job is a hash `<prefix>{relay}:job:<merchantId>:<referenceId>` {job: JSON, attempts, lease}; each
 * merchant's sorted set `<prefix>{relay}:due:<merchantId>` scores its job keys by when each is next
 * due, and the set `<prefix>{relay}:merchants` names the merchants that have any, so a lease takes
 * merchants in turn however many jobs one of them has queued. Taking a lease moves the score to the
 * lease's end, so a job whose holder died comes due again by itself. The `{relay}` hash tag keeps
 * the whole queue in one Redis Cluster slot, as the lease script reads many keys. The scripts are
 * sent by ioredis `defineCommand` (EVALSHA, and EVAL when a server lacks them).
 */

/** KEYS: job, merchant's due, merchants. ARGV: JSON, due ms, TTL, merchant part. Adds the job unless one exists. */
const enqueueScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'job', ARGV[1], 'attempts', 0, 'lease', '')
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 1
`;

/**
 * KEYS: merchants. ARGV: now ms, limit, lease end ms, lease token, due-key prefix, per-merchant cap
 * ('' for none), then pairs of merchant part and jobs the caller holds of it. Leases up to `limit`
 * due jobs, merchants in turn (the one whose earliest job waits longest first), at most the cap less
 * what the caller holds per merchant, and returns {JSON, attempts, lease} for each; entries whose
 * job expired are dropped, and merchants with nothing queued leave the set. The due set of earlier
 * versions (`<prefix>{relay}:due`, every merchant in one) is moved over first, so no relay queued
 * before an upgrade is left behind.
 */
const leaseScript = `
-- Jobs queued by a version with one due set for all merchants move to their merchant's set.
local legacy = string.sub(ARGV[5], 1, -2)
if redis.call('EXISTS', legacy) == 1 then
  local entries = redis.call('ZRANGE', legacy, 0, -1, 'WITHSCORES')
  for i = 1, #entries, 2 do
    local merchant = string.match(entries[i], '{relay}:job:([^:]*):')
    if merchant then
      redis.call('ZADD', ARGV[5] .. merchant, entries[i + 1], entries[i])
      redis.call('SADD', KEYS[1], merchant)
    end
  end
  redis.call('DEL', legacy)
end
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local busy = {}
for i = 7, #ARGV, 2 do busy[ARGV[i]] = tonumber(ARGV[i + 1]) end
local lists = {}
for _, merchant in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local due = ARGV[5] .. merchant
  if redis.call('ZCARD', due) == 0 then
    redis.call('SREM', KEYS[1], merchant)
  else
    local room = limit
    if ARGV[6] ~= '' then room = math.min(limit, tonumber(ARGV[6]) - (busy[merchant] or 0)) end
    if room > 0 then
      local keys = redis.call('ZRANGEBYSCORE', due, '-inf', now, 'WITHSCORES', 'LIMIT', 0, room)
      if #keys > 0 then table.insert(lists, { due = due, keys = keys, first = tonumber(keys[2]) }) end
    end
  end
end
table.sort(lists, function(a, b) return a.first < b.first end)
local out = {}
local round = 1
while #out < limit do
  local any = false
  for _, list in ipairs(lists) do
    local key = list.keys[round * 2 - 1]
    if key and #out < limit then
      any = true
      local fields = redis.call('HMGET', key, 'job', 'attempts')
      if fields[1] then
        local lease = ARGV[4] .. ':' .. (#out + 1)
        redis.call('HSET', key, 'lease', lease)
        redis.call('ZADD', list.due, ARGV[3], key)
        table.insert(out, { fields[1], fields[2], lease })
      else
        redis.call('ZREM', list.due, key)
      end
    end
  end
  if not any then break end
  round = round + 1
end
return out
`;

/** KEYS: job, merchant's due, merchants. ARGV: lease, attempts, due ms, TTL, merchant part. Only under the caller's own lease. */
const retryScript = `
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'attempts', ARGV[2], 'lease', '')
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[3], ARGV[5])
redis.call('EXPIRE', KEYS[3], ARGV[4])
return 1
`;

/** KEYS: job, merchant's due. ARGV: lease. Only under the caller's own lease. */
const finishScript = `
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`;

interface RelayScripts {
  pgwRelayEnqueue(
    job: string,
    due: string,
    merchants: string,
    json: string,
    dueMs: string,
    ttl: string,
    merchant: string,
  ): Promise<number>;
  pgwRelayLease(merchants: string, ...args: string[]): Promise<unknown>;
  pgwRelayRetry(
    job: string,
    due: string,
    merchants: string,
    lease: string,
    attempts: string,
    dueMs: string,
    ttl: string,
    merchant: string,
  ): Promise<number>;
  pgwRelayFinish(job: string, due: string, lease: string): Promise<number>;
}

/** Relay work in Redis, shared by every replica: whichever is alive sends what is due. */
export class RedisRelayQueue implements RelayQueue {
  private readonly client: RedisClient & RelayScripts;
  private readonly started: Promise<void>;
  private readonly duePrefix: string;
  private readonly merchantsKey: string;
  private readonly ttl: string;

  constructor(private readonly opts: RedisRelayQueueOptions) {
    const client = connectRedis(opts.redis, 'store', opts.onError);
    client.defineCommand('pgwRelayEnqueue', { numberOfKeys: 3, lua: enqueueScript });
    client.defineCommand('pgwRelayLease', { numberOfKeys: 1, lua: leaseScript });
    client.defineCommand('pgwRelayRetry', { numberOfKeys: 3, lua: retryScript });
    client.defineCommand('pgwRelayFinish', { numberOfKeys: 2, lua: finishScript });
    this.client = client as RedisClient & RelayScripts;
    this.started = firstAttempt(this.client);
    this.duePrefix = `${opts.prefix}{relay}:due:`;
    this.merchantsKey = `${opts.prefix}{relay}:merchants`;
    this.ttl = String(opts.retentionSeconds);
  }

  async enqueue(job: RelayJob, at: Date): Promise<void> {
    await this.started;
    await this.client.pgwRelayEnqueue(
      ...this.jobKeys(job),
      JSON.stringify(job),
      String(at.getTime()),
      this.ttl,
      keyPart(job.merchantId),
    );
  }

  async lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]> {
    const busy = [...(fairness?.busy ?? [])].flatMap(([merchantId, held]) => [keyPart(merchantId), String(held)]);
    await this.started;
    const rows = (await this.client.pgwRelayLease(
      this.merchantsKey,
      String(now.getTime()),
      String(limit),
      String(leaseUntil.getTime()),
      randomUUID(),
      this.duePrefix,
      fairness ? String(fairness.perMerchant) : '',
      ...busy,
    )) as [string, string, string][];
    return rows.map(([json, attempts, lease]) => ({
      ...(JSON.parse(json) as RelayJob),
      attempts: Number(attempts),
      lease,
    }));
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    await this.started;
    await this.client.pgwRelayRetry(
      ...this.jobKeys(job),
      job.lease,
      String(job.attempts + 1),
      String(at.getTime()),
      this.ttl,
      keyPart(job.merchantId),
    );
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    await this.started;
    const [key, due] = this.jobKeys(job);
    await this.client.pgwRelayFinish(key, due, job.lease);
  }

  async close(): Promise<void> {
    await closeRedis(this.client);
  }

  /** The job's hash, its merchant's due set, and the set of merchants with jobs: the keys enqueue and retry take. */
  private jobKeys(job: RelayJob): [job: string, due: string, merchants: string] {
    const merchant = keyPart(job.merchantId);
    return [
      `${this.opts.prefix}{relay}:job:${merchant}:${keyPart(job.referenceId)}`,
      `${this.duePrefix}${merchant}`,
      this.merchantsKey,
    ];
  }
}
