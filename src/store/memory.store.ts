import { HistoryPage, HistoryPosition, HistoryQuery, hasRecordFilter, scanHistory } from '../disbursements/disbursement.history';
import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementStore } from '../disbursements/disbursement.ports';
import { MemoryHistoryIndex } from './memory.history';

const keyOf = (merchantId: string, referenceId: string) => `${merchantId}\u0000${referenceId}`;

/**
 * One process's store. Records are replaced, never mutated, so a reader never sees half an update.
 * A record not written for `retentionMs` is forgotten, as Redis expires it, so memory stays bounded.
 */
export class MemoryStore implements DisbursementStore {
  private readonly records = new Map<string, Disbursement>();
  /** key → time of last write, in order of last write, so the oldest are always first. */
  private readonly writtenAt = new Map<string, number>();
  /** key → nextCheckAt in ms, only for records the reconciler still has to look at. */
  private readonly dueIndex = new Map<string, number>();
  /** merchant id → its payouts by when each was first stored, newest last. */
  private readonly histories = new Map<string, MemoryHistoryIndex>();
  /** key → its place in its merchant's history. */
  private readonly positions = new Map<string, HistoryPosition & { merchantId: string }>();
  reads = 0;

  constructor(
    private readonly retentionMs = 7 * 24 * 3600 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    this.reads += 1;
    return this.records.get(keyOf(merchantId, referenceId));
  }

  async getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    this.reads += 1;
    return referenceIds.map((id) => this.records.get(keyOf(merchantId, id)));
  }

  async insertIfAbsent(record: Disbursement): Promise<Disbursement | undefined> {
    const key = keyOf(record.merchantId, record.referenceId);
    const existing = this.records.get(key);
    if (existing) return existing;
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
    const current = this.records.get(key);
    if (!current) return undefined;
    const next = change(current);
    if (next) this.write(key, next);
    return next ?? current;
  }

  async remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void> {
    const key = keyOf(merchantId, referenceId);
    const current = this.records.get(key);
    if (current && expected(current)) this.forget(key);
  }

  async due(now: Date, limit: number): Promise<Disbursement[]> {
    this.reads += 1;
    const cutoff = now.getTime();
    return [...this.dueIndex]
      .filter(([, at]) => at <= cutoff)
      .sort((a, b) => a[1] - b[1])
      .slice(0, limit)
      .map(([key]) => this.records.get(key))
      .filter((r): r is Disbursement => r !== undefined);
  }

  async history(merchantId: string, query: HistoryQuery): Promise<HistoryPage> {
    this.reads += 1;
    const index = this.histories.get(merchantId) ?? new MemoryHistoryIndex();
    const bounds = { from: query.filter.createdFrom, to: query.filter.createdTo };
    const page = await scanHistory(
      async (after, count) => index.read(after, count, bounds, (referenceId) => this.records.get(keyOf(merchantId, referenceId))),
      query,
    );
    return hasRecordFilter(query.filter) ? page : { ...page, totalCount: index.countBetween(bounds.from, bounds.to) };
  }

  async healthy(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  private write(key: string, record: Disbursement): void {
    const at = this.now();
    this.records.set(key, record);
    this.writtenAt.delete(key);
    this.writtenAt.set(key, at);
    if (record.nextCheckAt) this.dueIndex.set(key, Date.parse(record.nextCheckAt));
    else this.dueIndex.delete(key);
    // Each write pays for the expiries before it: the oldest entries come first.
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
    this.dueIndex.delete(key);
  }
}
