import { Disbursement } from './disbursement.model';
import { HistoryEntry, HistoryFilter, HistoryPage, HistoryPosition, HistoryQuery } from './disbursement.ports';

/** Index entries one history call may look at while filtering; beyond it the page ends early with a cursor to go on from. */
export const HISTORY_SCAN_BOUND = 2000;
/** Index entries read per round trip while filtering. */
const SCAN_PAGE = 200;

/** One stretch of a merchant's index, newest first, strictly older than `after`, within the time bounds. */
export interface IndexStretch {
  /** Entries whose record still exists, with it. */
  entries: HistoryEntry[];
  /** The last index position read (its record may have expired); undefined when nothing was read. */
  last?: HistoryPosition;
  /** True when the index has nothing older within the bounds. */
  exhausted: boolean;
}

export type IndexReader = (after: HistoryPosition | undefined, count: number) => Promise<IndexStretch>;

/** Newest first: negative when `a` is listed before `b`. Compares ids by code unit, as Redis does for ASCII. */
export function compareNewestFirst(a: HistoryPosition, b: HistoryPosition): number {
  if (a.at !== b.at) return b.at - a.at;
  if (a.referenceId === b.referenceId) return 0;
  return a.referenceId > b.referenceId ? -1 : 1;
}

/** The filter's conditions that need the record itself (time is the index's own). */
function matches(record: Disbursement, filter: HistoryFilter): boolean {
  if (filter.statuses && filter.statuses.length > 0 && !filter.statuses.includes(record.status)) return false;
  if (filter.channel && record.channel !== filter.channel) return false;
  if (filter.referenceIdPrefix && !record.referenceId.startsWith(filter.referenceIdPrefix)) return false;
  return true;
}

export function hasRecordFilter(filter: HistoryFilter): boolean {
  return Boolean((filter.statuses && filter.statuses.length > 0) || filter.channel || filter.referenceIdPrefix);
}

/**
 * A page of history from a store's index: reads stretches newest first from the cursor and keeps
 * the records that match, until the page is full (plus one, to know whether more follow) or
 * HISTORY_SCAN_BOUND entries were looked at.
 */
export async function scanHistory(read: IndexReader, query: HistoryQuery): Promise<Omit<HistoryPage, 'totalCount'>> {
  const want = query.limit + 1;
  const filtering = hasRecordFilter(query.filter);
  const found: HistoryEntry[] = [];
  let after = query.after;
  let scanned = 0;
  let exhausted = false;
  while (found.length < want && scanned < HISTORY_SCAN_BOUND) {
    const count = filtering ? Math.min(SCAN_PAGE, HISTORY_SCAN_BOUND - scanned) : want - found.length;
    const stretch = await read(after, count);
    found.push(...stretch.entries.filter((entry) => matches(entry.record, query.filter)));
    scanned += count;
    after = stretch.last ?? after;
    if (stretch.exhausted) {
      exhausted = true;
      break;
    }
  }
  if (found.length > query.limit) {
    const entries = found.slice(0, query.limit);
    return { entries, hasMore: true, endPosition: positionOf(entries.at(-1)) ?? query.after };
  }
  if (exhausted) return { entries: found, hasMore: false, endPosition: positionOf(found.at(-1)) };
  // The bound ended the page early: go on from the last entry looked at, not the last one found.
  return { entries: found, hasMore: true, endPosition: after };
}

function positionOf(entry: HistoryEntry | undefined): HistoryPosition | undefined {
  return entry && { at: entry.at, referenceId: entry.referenceId };
}
