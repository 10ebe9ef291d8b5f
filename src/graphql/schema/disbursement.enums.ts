import { registerEnumType } from 'type-graphql';
import {
  DisbursementChannel,
  DisbursementStatus,
  EventSource,
  PaymentType,
} from '../../disbursements/disbursement.model';

registerEnumType(DisbursementStatus, {
  name: 'DisbursementStatus',
  description:
    'SUCCESSFUL, FAILED, CANCELLED and EXPIRED are final. UNKNOWN: the provider may have the payout; the gateway is finding out. AWAITING_APPROVAL: held by the payout controls, nothing sent until a second person approves it. SCHEDULED: waiting for its sendAt, nothing sent, cancellable. EXPIRED: its sendAt passed by more than SCHEDULE_LATE_LIMIT_SECONDS before it could be sent; never sent.',
});
registerEnumType(DisbursementChannel, { name: 'DisbursementChannel' });
registerEnumType(PaymentType, {
  name: 'PaymentType',
  description: 'OTHER: a value the gateway does not know; see providerPaymentType.',
});
registerEnumType(EventSource, {
  name: 'DisbursementEventSource',
  description:
    'What told the gateway about a status. CONTROL: a person (or the expiry) deciding under the payout controls, or a scheduled payout cancelled, put off or expired.',
});

/** What became of a payout held for approval. */
export const ApprovalDecision = {
  APPROVED: 'APPROVED',
  REJECTED: 'REJECTED',
  CANCELLED: 'CANCELLED',
  EXPIRED: 'EXPIRED',
} as const;
export type ApprovalDecision = (typeof ApprovalDecision)[keyof typeof ApprovalDecision];
registerEnumType(ApprovalDecision, {
  name: 'ApprovalDecision',
  description:
    'APPROVED: sent through the create protocol. REJECTED, CANCELLED, EXPIRED: the payout is CANCELLED and was never sent.',
});

export { DisbursementChannel, DisbursementStatus, EventSource, PaymentType };
