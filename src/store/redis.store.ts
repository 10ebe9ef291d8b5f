import { Redis } from 'ioredis';
import {
  HistoryEntry,
  HistoryPage,
  HistoryPosition,
  HistoryQuery,
  hasRecordFilter,
  IndexStretch,
  scanHistory,
} from '../disbursements/disbursement.history';
import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementStore } from '../disbursements/disbursement.ports';
import { closeRedis, connectRedis, failingAsUnavailable, firstAttempt, pingRedis, RedisErrorHandler } from './redis.connection';
import * as scripts from './redis.scripts';

export interface RedisStoreOptions {
  url: string;
  /** Starts every key, e.g. `pgw:`, so that gateways sharing one Redis stay apart. */
  prefix: string;
  /** How long a record, and so its idempotency claim, is kept after its last write. Default 7 days. */
  retentionSeconds?: number;
  onError?: RedisErrorHandler;
}

const DEFAULT_RETENTION_SECONDS = 7 * 24 * 3600;

/** Rounds one change may lose to other writers before it gives up; every lost round is another write that won. */
const MAX_ATTEMPTS = 100;

/** ':' separates the parts of a key, so ids escape it (and the escape character itself). */
const keyPart = (id: string) => id.replace(/%/g, '%25').replace(/:/g, '%3A');

const parse = (json: string): Disbursement => JSON.parse(json) as Disbursement;

/**
 * Records as JSON under `<prefix>d:<merchantId>:<referenceId>`, each expiring `retentionSeconds`
 * after its last write, and a sorted set `<prefix>due` of record keys scored by `nextCheckAt`.
 * Changes are compare-and-set Lua scripts rather than WATCH/MULTI, because WATCH belongs to a
 * connection and this one connection is shared by every concurrent request.
 */
export class RedisStore implements DisbursementStore {
  reads = 0;
  private readonly client: Redis;
  /** Calls made while the first connection is being set up wait for it; none wait after. */
  private readonly started: Promise<void>;
  private readonly prefix: string;
  private readonly dueKey: string;
  private readonly ttl: string;

  constructor(options: RedisStoreOptions) {
    const retention = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
    if (!Number.isInteger(retention) || retention < 1) {
      throw new Error(`retentionSeconds must be a positive whole number, got ${retention}`);
    }
    this.ttl = String(retention);
    this.prefix = options.prefix;
    this.dueKey = `${options.prefix}due`;
    this.client = failingAsUnavailable(connectRedis(options.url, 'store', options.onError));
    this.started = firstAttempt(this.client);
  }

  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    this.reads += 1;
    const redis = await this.redis();
    const json = await redis.get(this.keyOf(merchantId, referenceId));
    return json === null ? undefined : parse(json);
  }

  async getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    this.reads += 1;
    if (referenceIds.length === 0) return [];
    const redis = await this.redis();
    const values = await redis.mget(referenceIds.map((id) => this.keyOf(merchantId, id)));
    return values.map((json) => (json === null ? undefined : parse(json)));
  }

  async insertIfAbsent(record: Disbursement): Promise<Disbursement | undefined> {
    const keys = this.keysOf(record.merchantId, record.referenceId);
    const place = [String(Date.parse(record.updatedAt)), record.referenceId];
    const existing = await scripts.insertIfAbsent.run(await this.redis(), keys, [...this.writeArgs(record), ...place]);
    return typeof existing === 'string' ? parse(existing) : undefined;
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<Disbursement | undefined> {
    const redis = await this.redis();
    const keys = this.keysOf(merchantId, referenceId);
    let stored = await redis.get(keys[0]);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (stored === null) return undefined;
      const current = parse(stored);
      const next = change(current);
      if (!next) return current;
      const outcome = await scripts.replaceIf.run(redis, keys, [...this.writeArgs(next), stored]);
      if (outcome === 1) return next;
      stored = typeof outcome === 'string' ? outcome : null;
    }
    throw new Error(`update of ${keys[0]} lost ${MAX_ATTEMPTS} races in a row`);
  }

  async remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void> {
    const redis = await this.redis();
    const keys = this.keysOf(merchantId, referenceId);
    let stored = await redis.get(keys[0]);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (stored === null || !expected(parse(stored))) return;
      const outcome = await scripts.removeIf.run(redis, keys, [stored, referenceId]);
      if (outcome === 1) return;
      stored = typeof outcome === 'string' ? outcome : null;
    }
    throw new Error(`remove of ${keys[0]} lost ${MAX_ATTEMPTS} races in a row`);
  }

  async due(now: Date, limit: number): Promise<Disbursement[]> {
    this.reads += 1;
    if (limit < 1) return [];
    const redis = await this.redis();
    const keys = await redis.zrangebyscore(this.dueKey, '-inf', now.getTime(), 'LIMIT', 0, limit);
    if (keys.length === 0) return [];
    const values = await redis.mget(keys);
    // Records expire without telling the index; their entries go when they come up.
    const expired = keys.filter((_, i) => values[i] === null);
    if (expired.length > 0) await scripts.forgetExpired.run(redis, [this.dueKey, ...expired], []);
    return values.filter((json): json is string => json !== null).map(parse);
  }

  async history(merchantId: string, query: HistoryQuery): Promise<HistoryPage> {
    this.reads += 1;
    const redis = await this.redis();
    const histKey = this.historyKeyOf(merchantId);
    await this.forgetOldestExpired(redis, merchantId);
    const { createdFrom: from, createdTo: to } = query.filter;
    const page = await scanHistory((after, count) => this.readHistory(redis, merchantId, after, count, from, to), query);
    if (hasRecordFilter(query.filter)) return page;
    const totalCount = await redis.zcount(histKey, from ?? '-inf', to ?? '+inf');
    return { ...page, totalCount };
  }

  /** One stretch of the index, newest first, strictly older than `after`; expired records leave it as they are met. */
  private async readHistory(
    redis: Redis,
    merchantId: string,
    after: HistoryPosition | undefined,
    count: number,
    from: number | undefined,
    to: number | undefined,
  ): Promise<IndexStretch> {
    const key = this.historyKeyOf(merchantId);
    const min = from ?? '-inf';
    const start = after && (to === undefined || after.at <= to) ? after : undefined;
    const positions: HistoryPosition[] = [];
    if (start) {
      // Same millisecond as the cursor: only the ids after it (Redis lists ties by id, descending).
      const ties = await redis.zrevrangebyscore(key, start.at, start.at);
      positions.push(...ties.filter((id) => id < start.referenceId).map((referenceId) => ({ at: start.at, referenceId })));
    }
    const max = start ? `(${start.at}` : (to ?? '+inf');
    if (positions.length < count) {
      const found = await redis.zrevrangebyscore(key, max, min, 'WITHSCORES', 'LIMIT', 0, count - positions.length);
      for (let i = 0; i < found.length; i += 2) positions.push({ referenceId: found[i], at: Number(found[i + 1]) });
    }
    const stretch = positions.slice(0, count);
    const exhausted = stretch.length < count;
    if (stretch.length === 0) return { entries: [], exhausted };
    const keys = stretch.map((p) => this.keyOf(merchantId, p.referenceId));
    const values = await redis.mget(keys);
    const expired = stretch.filter((_, i) => values[i] === null);
    if (expired.length > 0) {
      await scripts.forgetExpiredHistory.run(
        redis,
        [key, ...expired.map((p) => this.keyOf(merchantId, p.referenceId))],
        expired.map((p) => p.referenceId),
      );
    }
    const entries: HistoryEntry[] = stretch.flatMap((p, i) => {
      const json = values[i];
      return json === null ? [] : [{ ...p, record: parse(json) }];
    });
    return { entries, last: stretch.at(-1), exhausted };
  }

  /**
   * Redis expires records but not members of a set: the oldest entries that may have outlived
   * their record (older than the retention) are checked a hundred at a time, so counts stay true.
   */
  private async forgetOldestExpired(redis: Redis, merchantId: string): Promise<void> {
    const key = this.historyKeyOf(merchantId);
    const cutoff = Date.now() - Number(this.ttl) * 1000;
    const old = await redis.zrangebyscore(key, '-inf', cutoff, 'LIMIT', 0, 100);
    if (old.length === 0) return;
    const keys = old.map((id) => this.keyOf(merchantId, id));
    const values = await redis.mget(keys);
    const gone = old.filter((_, i) => values[i] === null);
    if (gone.length > 0) {
      await scripts.forgetExpiredHistory.run(redis, [key, ...gone.map((id) => this.keyOf(merchantId, id))], gone);
    }
  }

  async healthy(): Promise<boolean> {
    return pingRedis(await this.redis());
  }

  async close(): Promise<void> {
    await closeRedis(this.client);
  }

  private async redis(): Promise<Redis> {
    await this.started;
    return this.client;
  }

  private keyOf(merchantId: string, referenceId: string): string {
    return `${this.prefix}d:${keyPart(merchantId)}:${keyPart(referenceId)}`;
  }

  /** A merchant's history index, under the merchant's cluster hash tag. */
  private historyKeyOf(merchantId: string): string {
    return `${this.prefix}{${keyPart(merchantId)}}:hist`;
  }

  private keysOf(merchantId: string, referenceId: string): [record: string, due: string, history: string] {
    return [this.keyOf(merchantId, referenceId), this.dueKey, this.historyKeyOf(merchantId)];
  }

  /** ARGV of the write scripts: JSON, TTL, and the due score ('' to leave the index). */
  private writeArgs(record: Disbursement): string[] {
    const score = record.nextCheckAt ? String(Date.parse(record.nextCheckAt)) : '';
    return [JSON.stringify(record), this.ttl, score];
  }
}
