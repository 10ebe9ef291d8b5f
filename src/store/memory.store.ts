import { hasRecordFilter, scanHistory } from '../disbursements/history.scan';
import { Disbursement, isFinal, Reservation } from '../disbursements/disbursement.model';
import {
  DisbursementStore,
  HistoryPage,
  HistoryPosition,
  HistoryQuery,
  StoreFullError,
} from '../disbursements/disbursement.ports';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import { packRecord, unpackRecord } from './memory.compact';
import { LoggedChange } from '../disbursements/disbursement.ports';
import { isPublished, shownOnInsert } from '../disbursements/disbursement.record';
import { MemoryChangeLog } from './memory.changes';
import { MemoryHistoryIndex } from './memory.history';

const keyOf = (merchantId: string, referenceId: string) => `${merchantId}\u0000${referenceId}`;
const dayKey = (merchantId: string, day: string, currency: string) => `${merchantId}\u0000${day}\u0000${currency}`;
const actorKey = (merchantId: string, day: string, currency: string, actorId: string) =>
  `${dayKey(merchantId, day, currency)}\u0000${actorId}`;

/**
 * A record's own copy, down to its history events: what is stored (so the writer, who keeps its
 * object, cannot change it) and what each reader gets (to change as it likes, as JSON.parse gave).
 * A handful of small objects, no text to build or parse. Not frozen: V8 gives every frozen copy of
 * a spread object a hidden class of its own (measured: 7 per record), which costs more than the copy.
 */
function copyOf(stored: Disbursement): Disbursement {
  const { request, relay } = stored;
  return {
    ...stored,
    request: request && { ...request },
    history: stored.history.map((event) => ({ ...event })),
    deliveryIds: stored.deliveryIds.slice(),
    relay: relay && { ...relay, attempts: relay.attempts.map((attempt) => ({ ...attempt })) },
  };
}

export interface MemoryStoreOptions {
  /** A record not written for this long is forgotten, as Redis expires it. */
  retentionMs?: number;
  /** Records held at most; past it the oldest final records go, and when none is final new records are refused. */
  maxRecords?: number;
  /** How long each merchant's change log keeps a change (EVENT_RETENTION_SECONDS). Default one day. */
  eventRetentionMs?: number;
  /** Changes kept per merchant at most. Default 10,000. */
  maxChangesPerMerchant?: number;
  now?: () => number;
}

/**
 * One process's store, bounded in time (retention) and in size (maxRecords).
 * A record still moving is kept as an object: no JSON text to build on each write or parse on each
 * read of the create and callback paths. A final record, which is what most of the store holds, is
 * packed into a short text (memory.compact.ts). The store keeps its own copy and every reader gets
 * one, so nobody can change a stored record except through update().
 */
export class MemoryStore implements DisbursementStore {
  private readonly records = new Map<string, Disbursement | string>();
  /** key → time of last write, in order of last write, so the oldest are always first. */
  private readonly writtenAt = new Map<string, number>();
  /** Keys of final records, in order of last write: the first is the next to go when the store is full. */
  private readonly finals = new Set<string>();
  /** key → nextCheckAt in ms, only for records the reconciler still has to look at. */
  private readonly dueIndex = new Map<string, number>();
  private readonly retentionMs: number;
  private readonly maxRecords: number;
  private readonly now: () => number;
  /** merchant id → its payouts by when each was first stored, newest last. */
  private readonly histories = new Map<string, MemoryHistoryIndex>();
  /** key → its place in its merchant's history. */
  private readonly positions = new Map<string, { merchantId: string; position: HistoryPosition }>();
  /** Daily-limit counters in minor units: merchant+day+currency, and the same per actor. */
  private readonly counters = new Map<string, number>();
  private readonly changes: MemoryChangeLog;
  reads = 0;

  constructor(opts: MemoryStoreOptions = {}) {
    this.retentionMs = opts.retentionMs ?? 7 * 24 * 3600 * 1000;
    this.maxRecords = opts.maxRecords ?? 100_000;
    this.now = opts.now ?? Date.now;
    this.changes = new MemoryChangeLog({
      retentionMs: opts.eventRetentionMs ?? 24 * 3600 * 1000,
      maxPerMerchant: opts.maxChangesPerMerchant ?? 10_000,
      now: this.now,
    });
  }

  /** Records held now (for the bench and tests). */
  get size(): number {
    return this.records.size;
  }

  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    this.reads += 1;
    return this.read(keyOf(merchantId, referenceId));
  }

  async getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    this.reads += 1;
    return referenceIds.map((id) => this.read(keyOf(merchantId, id)));
  }

  async insertIfAbsent(record: Disbursement): Promise<Disbursement | undefined> {
    return this.insertNow(record);
  }

  /** Synchronous, so that a check made before it and a count made after it are one step with it. */
  private insertNow(record: Disbursement): Disbursement | undefined {
    const key = keyOf(record.merchantId, record.referenceId);
    const existing = this.read(key);
    if (existing) return existing;
    this.makeRoom();
    this.write(key, record);
    const position = { at: Date.parse(record.updatedAt), referenceId: record.referenceId };
    // A literal, not a spread of `position`: V8 gave every spread copy a hidden class of its own (about 200 bytes a record).
    this.positions.set(key, { merchantId: record.merchantId, position });
    this.historyOf(record.merchantId).add(position);
    // A payout held for approval is a change clients see from the start; a claim is not yet.
    if (shownOnInsert(record)) this.changes.append(record);
    return undefined;
  }

  async insertReserving(
    record: Disbursement,
    caps: ReservationCaps,
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }> {
    const existing = this.read(keyOf(record.merchantId, record.referenceId));
    if (existing) return { existing };
    const held = record.reservation;
    if (held) {
      const { merchant, actor } = this.held(record.merchantId, held.day, held.currency, held.actorId);
      if (caps.dailyMinor !== undefined && merchant + held.minor > caps.dailyMinor)
        return { refused: { limit: 'dailyLimit', remainingMinor: Math.max(0, caps.dailyMinor - merchant) } };
      if (caps.userMinor !== undefined && actor + held.minor > caps.userMinor)
        return { refused: { limit: 'userDailyLimit', remainingMinor: Math.max(0, caps.userMinor - actor) } };
    }
    // Synchronous from the read above to here: nothing else runs in between, so check and reservation are one step.
    this.insertNow(record);
    if (held) this.count(record.merchantId, held, 1);
    return {};
  }

  async reserved(
    merchantId: string,
    day: string,
    currency: string,
    actorId: string,
  ): Promise<{ merchant: number; actor: number }> {
    this.reads += 1;
    return this.held(merchantId, day, currency, actorId);
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<Disbursement | undefined> {
    const key = keyOf(merchantId, referenceId);
    const current = this.read(key);
    if (!current) return undefined;
    const changed = change(current);
    if (!changed) return current;
    const { record, release } = releasing(changed);
    this.write(key, record);
    if (release) this.count(merchantId, release, -1);
    // In the same synchronous step as the write, so the log's order is the store's.
    if (isPublished(current, record)) this.changes.append(record);
    return copyOf(record);
  }

  async changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]> {
    this.reads += 1;
    return this.changes.after(merchantId, position, limit);
  }

  async hasChange(merchantId: string, position: string): Promise<boolean> {
    return this.changes.has(merchantId, position);
  }

  async latestChange(merchantId: string): Promise<string> {
    return this.changes.latest(merchantId);
  }

  async remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void> {
    const key = keyOf(merchantId, referenceId);
    const current = this.read(key);
    if (!current || !expected(current)) return;
    this.forget(key);
    const release = releasedByRemoval(current);
    if (release) this.count(merchantId, release, -1);
  }

  async due(now: Date, limit: number): Promise<Disbursement[]> {
    this.reads += 1;
    const cutoff = now.getTime();
    // Every second, with up to maxRecords entries: only the due ones are copied and sorted.
    const found: { key: string; at: number }[] = [];
    this.dueIndex.forEach((at, key) => {
      if (at <= cutoff) found.push({ key, at });
    });
    return found
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map(({ key }) => this.read(key))
      .filter((r): r is Disbursement => r !== undefined);
  }

  async history(merchantId: string, query: HistoryQuery): Promise<HistoryPage> {
    this.reads += 1;
    const index = this.histories.get(merchantId) ?? new MemoryHistoryIndex();
    const bounds = { from: query.filter.createdFrom, to: query.filter.createdTo };
    const page = await scanHistory(
      async (after, count) =>
        index.read(after, count, bounds, (referenceId) => this.read(keyOf(merchantId, referenceId))),
      query,
    );
    return hasRecordFilter(query.filter) ? page : { ...page, totalCount: index.countBetween(bounds.from, bounds.to) };
  }

  async healthy(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  private held(
    merchantId: string,
    day: string,
    currency: string,
    actorId: string,
  ): { merchant: number; actor: number } {
    return {
      merchant: this.counters.get(dayKey(merchantId, day, currency)) ?? 0,
      actor: this.counters.get(actorKey(merchantId, day, currency, actorId)) ?? 0,
    };
  }

  /** Adds (sign 1) or gives back (-1) a reservation; a counter back at zero is dropped, so past days leave nothing. */
  private count(merchantId: string, held: Reservation, sign: 1 | -1): void {
    for (const key of [
      dayKey(merchantId, held.day, held.currency),
      actorKey(merchantId, held.day, held.currency, held.actorId),
    ]) {
      const next = (this.counters.get(key) ?? 0) + sign * held.minor;
      if (next > 0) this.counters.set(key, next);
      else this.counters.delete(key);
    }
  }

  private read(key: string): Disbursement | undefined {
    const stored = this.records.get(key);
    if (stored === undefined) return undefined;
    return typeof stored === 'string' ? unpackRecord(stored) : copyOf(stored);
  }

  /** Before a new record: the oldest final record goes when the store is at its limit; with none final, refuse. */
  private makeRoom(): void {
    this.expire(this.now());
    while (this.records.size >= this.maxRecords) {
      const oldestFinal = this.finals.values().next();
      if (oldestFinal.done) throw new StoreFullError(this.maxRecords);
      this.forget(oldestFinal.value);
    }
  }

  private write(key: string, record: Disbursement): void {
    const at = this.now();
    const final = isFinal(record.status);
    this.records.set(key, final ? packRecord(record) : copyOf(record));
    this.writtenAt.delete(key);
    this.writtenAt.set(key, at);
    this.finals.delete(key);
    if (final) this.finals.add(key);
    if (record.nextCheckAt) this.dueIndex.set(key, Date.parse(record.nextCheckAt));
    else this.dueIndex.delete(key);
    this.expire(at);
  }

  /** Each write pays for the expiries before it: the oldest entries come first. */
  private expire(at: number): void {
    for (const [oldest, writtenAt] of this.writtenAt) {
      if (at - writtenAt < this.retentionMs) break;
      this.forget(oldest);
    }
  }

  private historyOf(merchantId: string): MemoryHistoryIndex {
    let index = this.histories.get(merchantId);
    if (!index) {
      index = new MemoryHistoryIndex();
      this.histories.set(merchantId, index);
    }
    return index;
  }

  private forget(key: string): void {
    const place = this.positions.get(key);
    if (place) {
      const index = this.histories.get(place.merchantId);
      index?.remove(place.position);
      if (index?.size === 0) this.histories.delete(place.merchantId);
      this.positions.delete(key);
    }
    this.records.delete(key);
    this.writtenAt.delete(key);
    this.finals.delete(key);
    this.dueIndex.delete(key);
  }
}
