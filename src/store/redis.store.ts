import { hasRecordFilter, IndexStretch, scanHistory } from '../disbursements/history.scan';
import { Disbursement, Reservation } from '../disbursements/disbursement.model';
import {
  DisbursementStore,
  HistoryEntry,
  HistoryPage,
  HistoryPosition,
  HistoryQuery,
} from '../disbursements/disbursement.ports';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import { positionTime } from '../disbursements/disbursement.changes';
import { LoggedChange, START_POSITION } from '../disbursements/disbursement.ports';
import { isPublished, shownOnInsert } from '../disbursements/disbursement.record';
import {
  classifyingFailures,
  closeRedis,
  connectRedis,
  FailureHandlers,
  firstAttempt,
  pingRedis,
  RedisClient,
  RedisErrorHandler,
  RedisTarget,
} from '../redis/redis.connection';
import { ChangeLog, RecordKeys, ScriptedClient, withScripts, WriteArgs } from './redis.scripts';
import { keyPart } from '../redis/redis.keys';

export interface RedisStoreOptions {
  /** A `redis://` URL, or the nodes of a Redis Cluster. */
  redis: RedisTarget;
  /** Starts every key, e.g. `pgw:`, so that gateways sharing one Redis stay apart. */
  prefix: string;
  /** How long a record, and so its idempotency claim, is kept after its last write. Default 7 days. */
  retentionSeconds?: number;
  /** How long each merchant's change stream keeps a change (EVENT_RETENTION_SECONDS). Default one day. */
  eventRetentionSeconds?: number;
  /** Changes a merchant's stream keeps at most (trimmed approximately). Default 100,000. */
  maxChangesPerMerchant?: number;
  onError?: RedisErrorHandler;
  /** Told of every failed command, by what it means; default: nothing beyond the rejection. */
  failures?: Partial<FailureHandlers>;
}

const DEFAULT_RETENTION_SECONDS = 7 * 24 * 3600;

/** Rounds one change may lose to other writers before it gives up; every lost round is another write that won. */
const MAX_ATTEMPTS = 100;

/** Records whose last written JSON this process keeps (the most recent writes), to compare against without reading first. */
const LAST_WRITTEN_KEPT = 4096;

/** How long this process trusts that a merchant is in the merchants set before adding it again. */
const MERCHANT_REFRESH_MS = 60_000;

const parse = (json: string): Disbursement => JSON.parse(json) as Disbursement;

/** Daily-limit counters outlive their day in any time zone, then go. */
const COUNTER_TTL_SECONDS = String(3 * 24 * 3600);

/**
 * Records as JSON under `<prefix>{<merchantId>}:d:<referenceId>`, each expiring `retentionSeconds`
 * after its last write, and per merchant a sorted set `<prefix>{<merchantId>}:due` of record keys
 * scored by `nextCheckAt`. The `{<merchantId>}` hash tag puts a merchant's records and indexes in
 * one Redis Cluster slot, so each script touches one slot; `<prefix>merchants` lists the merchants
 * whose indexes the reconciler reads.
 * Changes are compare-and-set Lua scripts rather than WATCH/MULTI, because WATCH belongs to a
 * connection and this one connection is shared by every concurrent request.
 */
export class RedisStore implements DisbursementStore {
  reads = 0;
  private readonly client: ScriptedClient<RedisClient>;
  /** Calls made while the first connection is being set up wait for it; none wait after. */
  private readonly started: Promise<void>;
  private readonly prefix: string;
  private readonly merchantsKey: string;
  private readonly ttl: string;
  private readonly eventRetentionMs: number;
  private readonly maxChanges: string;
  /** When this process last added each merchant to the merchants set. */
  private readonly merchantsAdded = new Map<string, number>();
  /**
   * record key → the JSON this process last wrote there, for the most recent writes. An update
   * (a create's answer right after its claim) sends its compare-and-set against it at once instead
   * of a GET first: one round trip fewer. Only a guess: when another writer moved first, the script
   * answers with what is stored and the change runs again on that, as after any lost race.
   */
  private readonly lastWritten = new Map<string, string>();

  constructor(options: RedisStoreOptions) {
    const retention = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
    if (!Number.isInteger(retention) || retention < 1) {
      throw new Error(`retentionSeconds must be a positive whole number, got ${retention}`);
    }
    this.ttl = String(retention);
    this.eventRetentionMs = (options.eventRetentionSeconds ?? 24 * 3600) * 1000;
    this.maxChanges = String(options.maxChangesPerMerchant ?? 100_000);
    this.prefix = options.prefix;
    this.merchantsKey = `${options.prefix}merchants`;
    const client = withScripts(connectRedis(options.redis, 'store', options.onError));
    this.client = classifyingFailures(client, {
      onOutage: options.failures?.onOutage ?? (() => undefined),
      onFault: options.failures?.onFault ?? (() => undefined),
    });
    this.started = firstAttempt(this.client);
  }

  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    this.reads += 1;
    const redis = await this.redis();
    const json = await redis.get(this.recordKey(merchantId, referenceId));
    return json === null ? undefined : parse(json);
  }

  async getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    this.reads += 1;
    if (referenceIds.length === 0) return [];
    const redis = await this.redis();
    const values = await redis.mget(referenceIds.map((id) => this.recordKey(merchantId, id)));
    return values.map((json) => (json === null ? undefined : parse(json)));
  }

  async insertIfAbsent(record: Disbursement): Promise<Disbursement | undefined> {
    const redis = await this.redis();
    await this.rememberMerchant(redis, record.merchantId);
    const [key, due, history] = this.keysOf(record.merchantId, record.referenceId);
    const place: [string, string] = [String(Date.parse(record.updatedAt)), record.referenceId];
    const args = this.writeArgs(record);
    const log = this.changeLog(shownOnInsert(record));
    const existing = await redis.pgwInsertIfAbsent(
      key,
      due,
      history,
      this.changesKey(record.merchantId),
      ...args,
      ...place,
      ...log,
    );
    if (typeof existing === 'string') return parse(existing);
    this.remember(key, args[0]);
    return undefined;
  }

  async insertReserving(
    record: Disbursement,
    caps: ReservationCaps,
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }> {
    const held = record.reservation;
    if (!held) return { existing: await this.insertIfAbsent(record) };
    const redis = await this.redis();
    await this.rememberMerchant(redis, record.merchantId);
    const [key, due, history] = this.keysOf(record.merchantId, record.referenceId);
    const args = this.writeArgs(record);
    const outcome = await redis.pgwInsertReserving(
      key,
      due,
      history,
      ...this.counterKeys(record.merchantId, held),
      this.changesKey(record.merchantId),
      ...args,
      String(Date.parse(record.updatedAt)),
      record.referenceId,
      String(held.minor),
      caps.dailyMinor === undefined ? '' : String(caps.dailyMinor),
      caps.userMinor === undefined ? '' : String(caps.userMinor),
      COUNTER_TTL_SECONDS,
      ...this.changeLog(shownOnInsert(record)),
    );
    if (typeof outcome === 'string') return { existing: parse(outcome) };
    if (Array.isArray(outcome))
      return {
        refused: { limit: outcome[0] === 'dailyLimit' ? 'dailyLimit' : 'userDailyLimit', remainingMinor: outcome[1] },
      };
    // As after every write of ours: the next update of this record may skip reading it first.
    this.remember(key, args[0]);
    return {};
  }

  async reserved(
    merchantId: string,
    day: string,
    currency: string,
    actorId: string,
  ): Promise<{ merchant: number; actor: number }> {
    this.reads += 1;
    const redis = await this.redis();
    const [merchant, actor] = await redis.mget(this.counterKeys(merchantId, { day, currency, actorId }));
    return { merchant: Number(merchant ?? 0), actor: Number(actor ?? 0) };
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<Disbursement | undefined> {
    const redis = await this.redis();
    const [key, due, history] = this.keysOf(merchantId, referenceId);
    const known = this.lastWritten.get(key);
    this.lastWritten.delete(key);
    // A guess from our own last write still has to be confirmed by the script, or by a read when nothing changes.
    let guessed = known !== undefined;
    let stored = known ?? (await redis.get(key));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (stored === null) return undefined;
      const current = parse(stored);
      const changed = change(current);
      if (!changed) {
        if (!guessed) return current;
        guessed = false;
        stored = await redis.get(key);
        continue;
      }
      const { record: next, release } = releasing(changed);
      const args = this.writeArgs(next);
      // The change stream is the last key and its three arguments come last, for every writing script.
      const log = this.changeLog(isPublished(current, next));
      const stream = this.changesKey(merchantId);
      const outcome = release
        ? await redis.pgwReplaceReleasing(
            key,
            due,
            history,
            ...this.counterKeys(merchantId, release),
            stream,
            ...args,
            stored,
            String(release.minor),
            ...log,
          )
        : await redis.pgwReplaceIf(key, due, history, stream, ...args, stored, ...log);
      if (outcome === 1) {
        this.remember(key, args[0]);
        return next;
      }
      guessed = false;
      stored = typeof outcome === 'string' ? outcome : null;
    }
    throw new Error(`update of ${key} lost ${MAX_ATTEMPTS} races in a row`);
  }

  async remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void> {
    const redis = await this.redis();
    const [key, due, history] = this.keysOf(merchantId, referenceId);
    this.lastWritten.delete(key);
    let stored = await redis.get(key);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (stored === null) return;
      const current = parse(stored);
      if (!expected(current)) return;
      const release = releasedByRemoval(current);
      const outcome = release
        ? await redis.pgwRemoveReleasing(
            key,
            due,
            history,
            ...this.counterKeys(merchantId, release),
            stored,
            referenceId,
            String(release.minor),
          )
        : await redis.pgwRemoveIf(key, due, history, stored, referenceId);
      if (outcome === 1) return;
      stored = typeof outcome === 'string' ? outcome : null;
    }
    throw new Error(`remove of ${key} lost ${MAX_ATTEMPTS} races in a row`);
  }

  async changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]> {
    this.reads += 1;
    // XRANGE with COUNT 0 answers nil, not an empty list.
    if (limit < 1) return [];
    const redis = await this.redis();
    const entries = await redis.xrange(this.changesKey(merchantId), `(${position}`, '+', 'COUNT', limit);
    const cutoff = Date.now() - this.eventRetentionMs;
    return entries.flatMap(([id, fields]) => {
      const json = fields[fields.indexOf('r') + 1];
      // Trimming is approximate: what is past the retention is not served even while Redis still has it.
      return positionTime(id) > cutoff && json !== undefined ? [{ position: id, record: parse(json) }] : [];
    });
  }

  async hasChange(merchantId: string, position: string): Promise<boolean> {
    if (positionTime(position) <= Date.now() - this.eventRetentionMs) return false;
    const redis = await this.redis();
    const found = await redis.xrange(this.changesKey(merchantId), position, position, 'COUNT', 1);
    return found.length > 0;
  }

  async latestChange(merchantId: string): Promise<string> {
    const redis = await this.redis();
    const [last] = await redis.xrevrange(this.changesKey(merchantId), '+', '-', 'COUNT', 1);
    return last ? last[0] : START_POSITION;
  }

  /** Reads each merchant's due index (one slot each), then merges them earliest first. */
  async due(now: Date, limit: number): Promise<Disbursement[]> {
    this.reads += 1;
    if (limit < 1) return [];
    const redis = await this.redis();
    const merchants = await redis.smembers(this.merchantsKey);
    const perMerchant = await Promise.all(
      merchants.map(async (merchantId) => {
        const flat = await redis.zrangebyscore(
          this.dueKey(merchantId),
          '-inf',
          now.getTime(),
          'WITHSCORES',
          'LIMIT',
          0,
          limit,
        );
        const entries: { merchantId: string; key: string; score: number }[] = [];
        for (let i = 0; i < flat.length; i += 2) entries.push({ merchantId, key: flat[i], score: Number(flat[i + 1]) });
        return entries;
      }),
    );
    const chosen = perMerchant
      .flat()
      .sort((a, b) => a.score - b.score)
      .slice(0, limit);
    const byMerchant = new Map<string, string[]>();
    for (const { merchantId, key } of chosen) byMerchant.set(merchantId, [...(byMerchant.get(merchantId) ?? []), key]);
    const found = new Map<string, Disbursement>();
    await Promise.all(
      [...byMerchant].map(async ([merchantId, keys]) => {
        const values = await redis.mget(keys);
        // Records expire without telling the index; their entries go when they come up.
        const expired = keys.filter((_, i) => values[i] === null);
        if (expired.length > 0) await redis.pgwForgetExpired(1 + expired.length, this.dueKey(merchantId), ...expired);
        keys.forEach((key, i) => {
          const json = values[i];
          if (json !== null) found.set(key, parse(json));
        });
      }),
    );
    return chosen.flatMap(({ key }) => found.get(key) ?? []);
  }

  async history(merchantId: string, query: HistoryQuery): Promise<HistoryPage> {
    this.reads += 1;
    const redis = await this.redis();
    const histKey = this.historyKeyOf(merchantId);
    await this.forgetOldestExpired(redis, merchantId);
    const { createdFrom: from, createdTo: to } = query.filter;
    const page = await scanHistory(
      (after, count) => this.readHistory(redis, merchantId, after, count, from, to),
      query,
    );
    if (hasRecordFilter(query.filter)) return page;
    const totalCount = await redis.zcount(histKey, from ?? '-inf', to ?? '+inf');
    return { ...page, totalCount };
  }

  /** One stretch of the index, newest first, strictly older than `after`; expired records leave it as they are met. */
  private async readHistory(
    redis: ScriptedClient<RedisClient>,
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
      positions.push(
        ...ties.filter((id) => id < start.referenceId).map((referenceId) => ({ at: start.at, referenceId })),
      );
    }
    const max = start ? `(${start.at}` : (to ?? '+inf');
    if (positions.length < count) {
      const found = await redis.zrevrangebyscore(key, max, min, 'WITHSCORES', 'LIMIT', 0, count - positions.length);
      for (let i = 0; i < found.length; i += 2) positions.push({ referenceId: found[i], at: Number(found[i + 1]) });
    }
    const stretch = positions.slice(0, count);
    const exhausted = stretch.length < count;
    if (stretch.length === 0) return { entries: [], exhausted };
    const keys = stretch.map((p) => this.recordKey(merchantId, p.referenceId));
    const values = await redis.mget(keys);
    const expired = stretch.filter((_, i) => values[i] === null);
    if (expired.length > 0) {
      const records = expired.map((p) => this.recordKey(merchantId, p.referenceId));
      await redis.pgwForgetExpiredHistory(1 + records.length, key, ...records, ...expired.map((p) => p.referenceId));
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
  private async forgetOldestExpired(redis: ScriptedClient<RedisClient>, merchantId: string): Promise<void> {
    const key = this.historyKeyOf(merchantId);
    const cutoff = Date.now() - Number(this.ttl) * 1000;
    const old = await redis.zrangebyscore(key, '-inf', cutoff, 'LIMIT', 0, 100);
    if (old.length === 0) return;
    const keys = old.map((id) => this.recordKey(merchantId, id));
    const values = await redis.mget(keys);
    const gone = old.filter((_, i) => values[i] === null);
    if (gone.length > 0) {
      const records = gone.map((id) => this.recordKey(merchantId, id));
      await redis.pgwForgetExpiredHistory(1 + records.length, key, ...records, ...gone);
    }
  }

  async healthy(): Promise<boolean> {
    return pingRedis(await this.redis());
  }

  async close(): Promise<void> {
    await closeRedis(this.client);
  }

  private async redis(): Promise<ScriptedClient<RedisClient>> {
    await this.started;
    return this.client;
  }

  /** Adds the merchant to the set the reconciler reads, at most once a minute per process (the set may have been emptied). */
  private async rememberMerchant(redis: RedisClient, merchantId: string): Promise<void> {
    const added = this.merchantsAdded.get(merchantId);
    if (added !== undefined && Date.now() - added < MERCHANT_REFRESH_MS) return;
    await redis.sadd(this.merchantsKey, merchantId);
    this.merchantsAdded.set(merchantId, Date.now());
  }

  private tag(merchantId: string): string {
    return `${this.prefix}{${keyPart(merchantId)}}`;
  }

  private recordKey(merchantId: string, referenceId: string): string {
    return `${this.tag(merchantId)}:d:${keyPart(referenceId)}`;
  }

  private dueKey(merchantId: string): string {
    return `${this.tag(merchantId)}:due`;
  }

  /** A merchant's history index, under the merchant's cluster hash tag. */
  private historyKeyOf(merchantId: string): string {
    return `${this.tag(merchantId)}:hist`;
  }

  /** The day counters a reservation counts in, under the merchant's hash tag so one script can reach them and the record. */
  private counterKeys(
    merchantId: string,
    held: Pick<Reservation, 'day' | 'currency' | 'actorId'>,
  ): [merchantDay: string, actorDay: string] {
    const day = `${this.tag(merchantId)}:lim:${held.day}:${keyPart(held.currency)}`;
    return [day, `${day}:u:${keyPart(held.actorId)}`];
  }

  /** The change stream's arguments of a writing script: whether this write is a change clients see, how long and how many are kept. */
  private changeLog(visible: boolean): ChangeLog {
    return [visible ? '1' : '0', String(this.eventRetentionMs), this.maxChanges];
  }

  /** A merchant's change stream, under the merchant's cluster hash tag like the record it logs. */
  private changesKey(merchantId: string): string {
    return `${this.tag(merchantId)}:changes`;
  }

  private keysOf(merchantId: string, referenceId: string): RecordKeys {
    return [this.recordKey(merchantId, referenceId), this.dueKey(merchantId), this.historyKeyOf(merchantId)];
  }

  private remember(key: string, json: string): void {
    this.lastWritten.delete(key);
    this.lastWritten.set(key, json);
    if (this.lastWritten.size > LAST_WRITTEN_KEPT)
      this.lastWritten.delete(this.lastWritten.keys().next().value as string);
  }

  /** ARGV of the write scripts: JSON, TTL, and the due score ('' to leave the index). */
  private writeArgs(record: Disbursement): WriteArgs {
    const score = record.nextCheckAt ? String(Date.parse(record.nextCheckAt)) : '';
    return [JSON.stringify(record), this.ttl, score];
  }
}
