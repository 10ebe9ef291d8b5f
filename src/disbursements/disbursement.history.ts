import { badInput } from './disbursement.errors';
import { DisbursementStore, HistoryFilter, HistoryPage, HistoryPosition, Merchant } from './disbursement.ports';

export const MAX_HISTORY_PAGE = 100;

export interface HistoryRequest {
  first: number;
  after?: HistoryPosition;
  filter: HistoryFilter;
}

/** A merchant's payouts, newest first, a page at a time; only that merchant's, as the store keys them. */
export class DisbursementHistory {
  constructor(private readonly store: Pick<DisbursementStore, 'history'>) {}

  page(merchant: Merchant, { first, after, filter }: HistoryRequest): Promise<HistoryPage> {
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
    return this.store.history(merchant.id, { after, limit: first, filter });
  }
}
