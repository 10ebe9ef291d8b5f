import { badInput } from './disbursement.errors';
import { DisbursementStore, HistoryFilter, HistoryPage, HistoryPosition, Merchant } from './disbursement.ports';
import { Disbursement } from './disbursement.model';
import { SealKeys, sealState } from './payout.seal';

export const MAX_HISTORY_PAGE = 100;

export interface HistoryRequest {
  first: number;
  after?: HistoryPosition;
  filter: HistoryFilter;
}

/**
 * A payout decided but not sent (held, scheduled) whose seal this gateway cannot vouch for under its key
 * in use (payout.seal.ts): its record differs from its sealed request, or another key sealed it. No list
 * shows it, so no approver sees details nobody asked for; its send refuses it, or holds it for an operator.
 */
function unsealedOpen(sealKeys: SealKeys, record: Disbursement): boolean {
  const open = record.status === 'AWAITING_APPROVAL' || record.status === 'SCHEDULED';
  if (!open || record.sending) return false;
  const { kind } = sealState(sealKeys, record);
  return kind !== 'sealed' && kind !== 'legacy';
}

/** A merchant's payouts, newest first, a page at a time; only that merchant's, as the store keys them. */
export class DisbursementHistory {
  constructor(
    private readonly store: Pick<DisbursementStore, 'history'>,
    private readonly sealKeys: SealKeys,
  ) {}

  async page(merchant: Merchant, { first, after, filter }: HistoryRequest): Promise<HistoryPage> {
    if (!Number.isInteger(first) || first < 0 || first > MAX_HISTORY_PAGE) {
      throw badInput(`first must be from 0 to ${MAX_HISTORY_PAGE}`, ['first']);
    }
    const { createdFrom, createdTo } = filter;
    if (createdFrom !== undefined && createdTo !== undefined && createdFrom > createdTo) {
      throw badInput('filter.createdFrom must not be after filter.createdTo', [
        'filter.createdFrom',
        'filter.createdTo',
      ]);
    }
    const page = await this.store.history(merchant.id, { after, limit: first, filter });
    const shown = page.entries.filter((e) => !unsealedOpen(this.sealKeys, e.record));
    return { ...page, entries: shown, totalCount: page.totalCount - (page.entries.length - shown.length) };
  }
}
