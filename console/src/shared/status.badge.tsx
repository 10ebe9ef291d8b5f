import type { DisbursementStatus } from '../gql/graphql';

const TONE: Record<DisbursementStatus, string> = {
  SUCCESSFUL: 'good',
  PENDING: 'wait',
  SCHEDULED: 'wait',
  AWAITING_APPROVAL: 'attention',
  UNKNOWN: 'attention',
  FAILED: 'bad',
  CANCELLED: 'muted',
  EXPIRED: 'muted',
};

/** A payout status as the API names it, coloured by what it asks of the reader (the word itself carries the meaning). */
export function StatusBadge({ status }: { status: DisbursementStatus }) {
  return <span className={`badge badge-${TONE[status]}`}>{status}</span>;
}
