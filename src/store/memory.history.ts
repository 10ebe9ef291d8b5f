import { HistoryPosition, IndexStretch } from '../disbursements/disbursement.history';
import { Disbursement } from '../disbursements/disbursement.model';

/** Oldest first, so that new payouts (the usual insert) go at the end. */
function compareOldestFirst(a: HistoryPosition, b: HistoryPosition): number {
  if (a.at !== b.at) return a.at - b.at;
  if (a.referenceId === b.referenceId) return 0;
  return a.referenceId < b.referenceId ? -1 : 1;
}

/** First index whose entry is not before `position` (oldest first). */
function lowerBound(entries: readonly HistoryPosition[], position: HistoryPosition): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareOldestFirst(entries[middle], position) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** One merchant's history index in memory: positions kept sorted, found by binary search. */
export class MemoryHistoryIndex {
  private readonly entries: HistoryPosition[] = [];

  add(position: HistoryPosition): void {
    const last = this.entries.at(-1);
    if (!last || compareOldestFirst(last, position) < 0) this.entries.push(position);
    else this.entries.splice(lowerBound(this.entries, position), 0, position);
  }

  remove(position: HistoryPosition): void {
    const index = lowerBound(this.entries, position);
    if (index < this.entries.length && compareOldestFirst(this.entries[index], position) === 0) this.entries.splice(index, 1);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Entries within [from, to] (ms, inclusive). */
  countBetween(from = -Infinity, to = Infinity): number {
    return lowerBound(this.entries, { at: to, referenceId: '\u{10FFFF}' }) - lowerBound(this.entries, { at: from, referenceId: '' });
  }

  read(
    after: HistoryPosition | undefined,
    count: number,
    bounds: { from?: number; to?: number },
    recordOf: (referenceId: string) => Disbursement | undefined,
  ): IndexStretch {
    const upper = bounds.to === undefined ? this.entries.length : lowerBound(this.entries, { at: bounds.to, referenceId: '\u{10FFFF}' });
    const start = Math.min(upper, after ? lowerBound(this.entries, after) : this.entries.length);
    const stretch: IndexStretch = { entries: [], exhausted: false };
    let index = start - 1;
    for (; index >= 0 && start - 1 - index < count; index -= 1) {
      const position = this.entries[index];
      if (bounds.from !== undefined && position.at < bounds.from) break;
      stretch.last = position;
      const record = recordOf(position.referenceId);
      if (record) stretch.entries.push({ ...position, record });
    }
    stretch.exhausted = index < 0 || (bounds.from !== undefined && this.entries[index].at < bounds.from);
    return stretch;
  }
}
