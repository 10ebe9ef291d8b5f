/** The gateway's own view of a payout. Amounts are canonical decimal strings, never floats. */

export const DisbursementStatus = {
  PENDING: 'PENDING',
  SUCCESSFUL: 'SUCCESSFUL',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  UNKNOWN: 'UNKNOWN',
} as const;
export type DisbursementStatus = (typeof DisbursementStatus)[keyof typeof DisbursementStatus];

export const DisbursementChannel = { BANK: 'BANK', MOBILE_MONEY: 'MOBILE_MONEY' } as const;
export type DisbursementChannel = (typeof DisbursementChannel)[keyof typeof DisbursementChannel];

export const PaymentType = {
  BANK: 'BANK',
  OPERATOR_A_MONEY: 'OPERATOR_A_MONEY',
  OPERATOR_B_MONEY: 'OPERATOR_B_MONEY',
  OPERATOR_C_KWACHA: 'OPERATOR_C_KWACHA',
  OTHER: 'OTHER',
} as const;
export type PaymentType = (typeof PaymentType)[keyof typeof PaymentType];

export const EventSource = {
  CREATE: 'CREATE',
  CALLBACK: 'CALLBACK',
  STATUS_CHECK: 'STATUS_CHECK',
} as const;
export type EventSource = (typeof EventSource)[keyof typeof EventSource];

export interface BankRequest {
  channel: 'BANK';
  referenceId: string;
  amount: string;
  currency: string;
  narration: string;
  accountNumber: string;
  swiftCode: string;
  firstName: string;
  lastName: string;
  accountHolderName: string;
  phoneNumber: string;
  email?: string;
  /** The client's own address; the provider is always pointed at the gateway. */
  callbackUrl?: string;
}

export interface MobileMoneyRequest {
  channel: 'MOBILE_MONEY';
  referenceId: string;
  amount: string;
  currency: string;
  accountNumber: string;
  narration?: string;
}

export type DisbursementRequest = BankRequest | MobileMoneyRequest;

export interface StatusEvent {
  status: DisbursementStatus;
  providerStatus?: string;
  message?: string;
  source: EventSource;
  at: string;
}

export interface Disbursement {
  merchantId: string;
  referenceId: string;
  channel: DisbursementChannel;
  /** The request as the client sent it (canonical), to recognise retries and name conflicts. */
  request?: DisbursementRequest;
  fingerprint?: string;
  /** The id of the request that created it, so every later log line of this payout can be joined to it. */
  requestId?: string;
  /** True while a create call to the provider may be in flight for this record. */
  sending: boolean;
  status: DisbursementStatus;
  providerStatus?: string;
  paymentType: PaymentType;
  providerPaymentType?: string;
  message?: string;
  amount: string;
  currency: string;
  accountNumber: string;
  narration?: string;
  identifier?: string;
  externalId?: string;
  ipAddress?: string;
  createdAt?: string;
  updatedAt: string;
  /**
   * Grows by one with every change a client can see, and only then is the record published, so
   * watchers can drop what they have already seen. Bookkeeping writes (claims, leases, check
   * schedules, the relay audit) keep it; see disbursement.record.ts.
   */
  version: number;
  history: StatusEvent[];
  /** webhook-ids already applied, so a redelivery changes nothing. */
  deliveryIds: string[];
  /** When the reconciler should next ask the provider about it; unset once there is nothing to learn. */
  nextCheckAt?: string;
  /** Status checks made by the reconciler so far, for its backoff. */
  checkAttempts: number;
  /** Deliveries of the final record to the client's own callbackUrl. */
  relay?: RelayState;
}

export interface RelayAttempt {
  at: string;
  /** HTTP status answered, when one came back. */
  status?: number;
  error?: string;
}

export interface RelayState {
  url: string;
  delivered: boolean;
  /** True once retries stopped without a 2xx. */
  gaveUp: boolean;
  attempts: RelayAttempt[];
}

/** What the provider said about a payout, parsed tolerantly (see upstream/provider.record.ts). */
export interface ProviderRecord {
  referenceId: string;
  status: DisbursementStatus;
  providerStatus: string;
  paymentType: PaymentType;
  providerPaymentType?: string;
  amount?: string;
  currency?: string;
  accountNumber?: string;
  narration?: string;
  identifier?: string;
  externalId?: string;
  ipAddress?: string;
  createdAt?: string;
  message?: string;
}

/** The merchant's wallet as the provider reports it. */
export interface ProviderBalance {
  /** Canonical decimal text; negative when the wallet is overdrawn. */
  amount: string;
  /** Three capital letters when the provider names it. */
  currency?: string;
}

const FINAL_STATUSES: ReadonlySet<DisbursementStatus> = new Set(['SUCCESSFUL', 'FAILED', 'CANCELLED']);

export function isFinal(status: DisbursementStatus): boolean {
  return FINAL_STATUSES.has(status);
}
