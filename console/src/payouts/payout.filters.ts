import type { DisbursementChannel, DisbursementFilter, DisbursementStatus, PayoutRowFragment } from '../gql/graphql';
import { fromLocalInput } from '../shared/time';

export const STATUSES: readonly DisbursementStatus[] = [
  'PENDING',
  'SUCCESSFUL',
  'FAILED',
  'UNKNOWN',
  'AWAITING_APPROVAL',
  'SCHEDULED',
  'CANCELLED',
  'EXPIRED',
];
export const CHANNELS: readonly DisbursementChannel[] = ['MOBILE_MONEY', 'BANK'];

export interface PayoutFilters {
  status: DisbursementStatus | '';
  channel: DisbursementChannel | '';
  /** Days (date inputs, the browser's zone), both included. */
  from: string;
  to: string;
  text: string;
}

export const NO_FILTERS: PayoutFilters = { status: '', channel: '', from: '', to: '', text: '' };

/** Digits only: an account number (or its end), which the API cannot filter by; anything else is a reference prefix. */
const accountSearch = (text: string) => /^\d{3,}$/.test(text.trim());

/** The API's filter for what the person chose; an account number is matched in the rows instead (accountMatches). */
export function apiFilter(filters: PayoutFilters): DisbursementFilter {
  const to = fromLocalInput(filters.to);
  const text = filters.text.trim();
  return {
    ...(filters.status && { status: [filters.status] }),
    ...(filters.channel && { channel: filters.channel }),
    ...(filters.from && { createdFrom: fromLocalInput(filters.from) }),
    // The end day is included: up to its last millisecond.
    ...(to && { createdTo: new Date(Date.parse(to) + 86_400_000 - 1).toISOString() }),
    ...(text && !accountSearch(text) && { referenceIdPrefix: text }),
  };
}

export function accountMatches(filters: PayoutFilters, payout: PayoutRowFragment): boolean {
  const text = filters.text.trim();
  return !accountSearch(text) || payout.accountNumber.includes(text);
}

/** Whether a payout belongs in the list as filtered: a live change of one that does not is left out. */
export function matches(filters: PayoutFilters, payout: PayoutRowFragment): boolean {
  const filter = apiFilter(filters);
  if (filter.status && !filter.status.includes(payout.status)) return false;
  if (filter.channel && filter.channel !== payout.channel) return false;
  if (filter.referenceIdPrefix && !payout.referenceId.startsWith(filter.referenceIdPrefix)) return false;
  return accountMatches(filters, payout);
}
