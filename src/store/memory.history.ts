import { HistoryPosition } from '../disbursements/disbursement.ports';
import { IndexStretch } from '../disbursements/history.scan';
import { Disbursement } from '../disbursements/disbursement.model';

/** Oldest first, so that new payouts (the usual insert) go at the end. */
function compareOldestFirst(a: HistoryPosition, b: HistoryPosition): number {
  if (a.at !== b.at) return a.at - b.at;
  if (a.referenceId === b.referenceId) return 0;
  return a.referenceId < b.referenceId ? -1 : 1;
}

/** First index from `low` on whose entry is not before `position` (oldest first). */
function lowerBound(entries: readonly HistoryPosition[], position: HistoryPosition, low = 0): number {
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareOldestFirst(entries[middle], position) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Removed entries kept at the front before they are cut off in one go. */
const COMPACT_AFTER = 1024;

/** One merchant's history index in memory: positions kept sorted, found by binary search. */
export class MemoryHistoryIndex {
  private entries: HistoryPosition[] = [];
  /** Entries before this index are removed: the oldest goes in O(1) (eviction, expiry), not by moving all the others. */
  private head = 0;

  add(position: HistoryPosition): void {
    const last = this.entries.at(-1);
    if (this.entries.length === this.head || compareOldestFirst(last as HistoryPosition, position) < 0)
      this.entries.push(position);
    else this.entries.splice(this.lowerBound(position), 0, position);
  }

  remove(position: HistoryPosition): void {
    const index = this.lowerBound(position);
    if (index >= this.entries.length || compareOldestFirst(this.entries[index], position) !== 0) return;
    if (index !== this.head) {
      this.entries.splice(index, 1);
      return;
    }
    this.head += 1;
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** First live index whose entry is not before `position`. */
  private lowerBound(position: HistoryPosition): number {
    return lowerBound(this.entries, position, this.head);
  }

  get size(): number {
    return this.entries.length - this.head;
  }

  /** Entries within [from, to] (ms, inclusive). */
  countBetween(from = -Infinity, to = Infinity): number {
    return this.lowerBound({ at: to, referenceId: '\u{10FFFF}' }) - this.lowerBound({ at: from, referenceId: '' });
  }

  read(
    after: HistoryPosition | undefined,
    count: number,
    bounds: { from?: number; to?: number },
    recordOf: (referenceId: string) => Disbursement | undefined,
  ): IndexStretch {
    const upper =
      bounds.to === undefined ? this.entries.length : this.lowerBound({ at: bounds.to, referenceId: '\u{10FFFF}' });
    const start = Math.min(upper, after ? this.lowerBound(after) : this.entries.length);
    const stretch: IndexStretch = { entries: [], exhausted: false };
    let index = start - 1;
    for (; index >= this.head && start - 1 - index < count; index -= 1) {
      const position = this.entries[index];
      if (bounds.from !== undefined && position.at < bounds.from) break;
      stretch.last = position;
      const record = recordOf(position.referenceId);
      if (record) stretch.entries.push({ ...position, record });
    }
    stretch.exhausted = index < this.head || (bounds.from !== undefined && this.entries[index].at < bounds.from);
    return stretch;
  }
}
