import { DISBURSEMENT_FIELDS } from './stack';

/** One payout as DISBURSEMENT_FIELDS selects it, typed as the schema returns it. */
export interface PayoutRow {
  referenceId: string;
  identifier: string | null;
  channel: string;
  paymentType: string;
  providerPaymentType: string | null;
  status: string;
  providerStatus: string | null;
  message: string | null;
  amount: string;
  currency: string;
  accountNumber: string;
  narration: string | null;
  externalId: string | null;
  ipAddress: string | null;
  createdAt: string | null;
  updatedAt: string;
  history: { status: string; providerStatus: string | null; message: string | null; source: string; at: string }[];
}

/** Watches one payout (variable `referenceId`); each event is a PayoutRow. */
export const WATCH = `subscription Watch($referenceId: ID!) { disbursementUpdated(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;
