import { HistoryPage, HistoryPosition, HistoryQuery, hasRecordFilter, scanHistory } from '../disbursements/disbursement.history';
import { Disbursement, isFinal } from '../disbursements/disbursement.model';
import { DisbursementStore, StoreFullError } from '../disbursements/disbursement.ports';
import { MemoryHistoryIndex } from './memory.history';

const keyOf = (merchantId: string, referenceId: string) => `${merchantId}\u0000${referenceId}`;

export interface MemoryStoreOptions {
  /** A record not written for this long is forgotten, as Redis expires it. */
  retentionMs?: number;
  /** Records held at most; past it the oldest final records go, and when none is final new records are refused. */
  maxRecords?: number;
  now?: () => number;
}

/**
 * One process's store, bounded in time (retention) and in size (maxRecords).
 * Records are kept as JSON text, as Redis keeps them: a third less memory than the objects
 * (measured: about 1.3 KB against 1.8 KB per payout), and every reader gets its own copy, so
 * nobody can change a stored record except through update().
 */
export class MemoryStore implements DisbursementStore {
  private readonly records = new Map<string, string>();
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
  private readonly positions = new Map<string, HistoryPosition & { merchantId: string }>();
  reads = 0;

  constructor(opts: MemoryStoreOptions = {}) {
    this.retentionMs = opts.retentionMs ?? 7 * 24 * 3600 * 1000;
    this.maxRecords = opts.maxRecords ?? 100_000;
    this.now = opts.now ?? Date.now;
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
    const key = keyOf(record.merchantId, record.referenceId);
    const existing = this.read(key);
    if (existing) return existing;
    this.makeRoom();
    this.write(key, record);
    const position = { at: Date.parse(record.updatedAt), referenceId: record.referenceId };
    this.positions.set(key, { ...position, merchantId: record.merchantId });
    this.historyOf(record.merchantId).add(position);
    return undefined;
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<Disbursement | undefined> {
    const key = keyOf(merchantId, referenceId);
    const current = this.read(key);
    if (!current) return undefined;
    const next = change(current);
    if (next) this.write(key, next);
    return next ?? current;
  }

  async remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void> {
    const key = keyOf(merchantId, referenceId);
    const current = this.read(key);
    if (current && expected(current)) this.forget(key);
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
      async (after, count) => index.read(after, count, bounds, (referenceId) => this.read(keyOf(merchantId, referenceId))),
      query,
    );
    return hasRecordFilter(query.filter) ? page : { ...page, totalCount: index.countBetween(bounds.from, bounds.to) };
  }

  async healthy(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  private read(key: string): Disbursement | undefined {
    const text = this.records.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as Disbursement);
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
    this.records.set(key, JSON.stringify(record));
    this.writtenAt.delete(key);
    this.writtenAt.set(key, at);
    this.finals.delete(key);
    if (isFinal(record.status)) this.finals.add(key);
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
    const position = this.positions.get(key);
    if (position) {
      const index = this.histories.get(position.merchantId);
      index?.remove(position);
      if (index?.size === 0) this.histories.delete(position.merchantId);
      this.positions.delete(key);
    }
    this.records.delete(key);
    this.writtenAt.delete(key);
    this.finals.delete(key);
    this.dueIndex.delete(key);
  }
}
