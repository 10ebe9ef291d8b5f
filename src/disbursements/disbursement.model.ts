/** The gateway's own view of a payout. Amounts are canonical decimal strings, never floats. */

export const DisbursementStatus = {
  /** Held by the merchant's payout controls: stored, nothing sent, until a second person approves it. */
  AWAITING_APPROVAL: 'AWAITING_APPROVAL',
  /** Waiting for its `sendAt`: stored, nothing sent, cancellable until it is sent. */
  SCHEDULED: 'SCHEDULED',
  PENDING: 'PENDING',
  SUCCESSFUL: 'SUCCESSFUL',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  UNKNOWN: 'UNKNOWN',
  /** Its `sendAt` passed by more than SCHEDULE_LATE_LIMIT_SECONDS before it could be sent: never sent. */
  EXPIRED: 'EXPIRED',
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
  /** A person's decision under the payout controls: approve, reject, cancel; or the approval's expiry. */
  CONTROL: 'CONTROL',
  /** A reconciliation run took the provider's word for a payout the gateway had not settled. */
  RECONCILED: 'RECONCILED',
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
  /** When to send it (ISO); part of the request, so a retry with another time is a conflict. */
  sendAt?: string;
}

export interface MobileMoneyRequest {
  channel: 'MOBILE_MONEY';
  referenceId: string;
  amount: string;
  currency: string;
  accountNumber: string;
  narration?: string;
  sendAt?: string;
}

export type DisbursementRequest = BankRequest | MobileMoneyRequest;

export interface StatusEvent {
  status: DisbursementStatus;
  providerStatus?: string;
  message?: string;
  source: EventSource;
  at: string;
  /** Who did it (the actor's name); unset for the provider's and the gateway's own steps. */
  actor?: string;
  /**
   * How many times in a row this same step happened, when more than once (a retry refused the same
   * way again): counted here instead of repeated; `at` is the first time, `lastAt` the last.
   */
  repeated?: number;
  lastAt?: string;
}

/** Who asked for a payout and what became of its approval (see payout.controls.ts). */
export interface ApprovalState {
  /** The requester's name, as shown. */
  requestedBy: string;
  /** The requester's identity, compared so that nobody approves their own payout. */
  requesterId: string;
  expiresAt: string;
  decision?: 'APPROVED' | 'REJECTED' | 'CANCELLED' | 'EXPIRED';
  decidedBy?: string;
  decidedAt?: string;
  reason?: string;
}

/**
 * Who decided that the gateway may send a payout on its own, and when (payout.seal.ts seals it with the
 * request): the requester's create within the payout controls (`WITHIN_LIMITS`, a payout sent at its
 * time), or a second person's approval (`APPROVED`).
 */
export interface SendDecision {
  kind: 'WITHIN_LIMITS' | 'APPROVED';
  /** The decider's identity, compared with the requester's; and name, as shown. */
  byId: string;
  by: string;
  /** ISO time of the decision. */
  at: string;
}

/**
 * The amount a payout holds against its merchant's daily limits, in minor units (cents). The store
 * adds it when the record is inserted and takes it back, in the same atomic step, when a write makes
 * the record FAILED or CANCELLED or removes it (`released` then says it is back).
 */
export interface Reservation {
  /** The calendar day it counts against (YYYY-MM-DD in PAYOUT_DAY_TIMEZONE). */
  day: string;
  currency: string;
  /** The requester's identity, for the per-person counter. */
  actorId: string;
  minor: number;
  released?: boolean;
}

/**
 * What the due loop does for a payout at `at`: ask the provider how it stands (`RECHECK`), ask it
 * about a payout the gateway sends on its own decision and send it again once it was never received
 * (`RESEND`), end an approval that nobody gave in time (`APPROVAL_EXPIRY`), or send it at its
 * scheduled time, or again (`SEND`). The loop dispatches on the kind exhaustively
 * (disbursement.service.ts runDue): a new kind does not compile until it is handled.
 */
export const DueKind = {
  RECHECK: 'RECHECK',
  RESEND: 'RESEND',
  APPROVAL_EXPIRY: 'APPROVAL_EXPIRY',
  SEND: 'SEND',
} as const;
export type DueKind = (typeof DueKind)[keyof typeof DueKind];

export interface Due {
  kind: DueKind;
  /** ISO time. */
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
  /**
   * The trace context (W3C traceparent) of the work that created it, when tracing is on: the spans
   * of its later callbacks link to that trace. Optional: records written without it stay valid.
   */
  traceparent?: string;
  /** True while a create call to the provider may be in flight for this record. */
  sending: boolean;
  /**
   * When the latest send of this payout left the gateway: for one still `sending`, when it was about
   * to (it leaves before the claim goes stale); after a send with no answer, when that send ended.
   * Unset while nothing was sent, and once the provider confirmed it never received one.
   */
  sentAt?: string;
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
   * watchers can drop what they have already seen. Bookkeeping writes (claims, leases, next checks,
   * the relay audit) keep it; see disbursement.record.ts.
   */
  version: number;
  history: StatusEvent[];
  /** webhook-ids already applied, so a redelivery changes nothing. */
  deliveryIds: string[];
  /** What is due for it next and when (the due loop's work); unset once nothing is. */
  due?: Due;
  /**
   * Until when one replica's due loop holds it (ISO): no other takes it meanwhile. Any write that sets
   * what is due next ends it (`nextDue`, `withDueNext`).
   */
  leasedUntil?: string;
  /** Status checks made by the rechecker so far, for its backoff. */
  checkAttempts: number;
  /** Deliveries of the final record to the client's own callbackUrl. */
  relay?: RelayState;
  /** The name of who asked for it, when the gateway knows. */
  createdBy?: string;
  /** Their identity: a payout held only at its send (send.recheck.ts) is not approvable by them either. */
  requesterId?: string;
  /** Set when the payout controls held it for approval. */
  approval?: ApprovalState;
  /** When a scheduled payout is due (ISO); unset for one sent at once. */
  sendAt?: string;
  /** The beneficiary it was made to (payBeneficiary); its account details are the request's, copied then. */
  beneficiaryId?: string;
  /** Set when it counts against daily limits. */
  reservation?: Reservation;
  /** The last audit entry written about it, and the identical ones since that were only counted (audit.repeats.ts). */
  auditTail?: AuditTail;
  /** The decision that lets the gateway send it on its own (none while it awaits one, and once it ended unsent). */
  decision?: SendDecision;
  /**
   * The gateway's keyed value over its request, requester and decision, naming its key (payout.seal.ts):
   * what a later send checks the record against. Dropped once it ended unsent.
   */
  seal?: string;
}

/**
 * The content of the last audit entry written about a payout (`at`: when), and how many identical
 * entries followed within its burst that were counted instead of written (`count`, from `firstAt`
 * to `lastAt`). Bookkeeping: never shown, never a new version.
 */
export interface AuditTail {
  action: string;
  actor: string | null;
  status: DisbursementStatus | null;
  detail: string | null;
  at: string;
  count: number;
  firstAt?: string;
  lastAt?: string;
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

/**
 * Whether the gateway sends this payout on its own decision, and so sends it again once the provider
 * confirms it never received it: one a second person approved, or one scheduled for its time. A create
 * a client sent to go at once waits for that client's retry instead.
 */
export function gatewaySends(record: Disbursement): boolean {
  return record.decision !== undefined && (record.decision.kind === 'APPROVED' || record.sendAt !== undefined);
}

/** Nothing was sent for it yet, so nothing the provider says about its referenceId is about it. */
export function isUnsent(record: Disbursement): boolean {
  return record.status === 'AWAITING_APPROVAL' || record.status === 'SCHEDULED';
}

/** The merchant's wallet as the provider reports it. */
export interface ProviderBalance {
  /** Canonical decimal text; negative when the wallet is overdrawn. */
  amount: string;
  /** Three capital letters when the provider names it. */
  currency?: string;
}

const FINAL_STATUSES: ReadonlySet<DisbursementStatus> = new Set(['SUCCESSFUL', 'FAILED', 'CANCELLED', 'EXPIRED']);

/** The fields of a record that say what is due next: `at` for `kind`, or nothing; a lease ends with any change of them. */
export function nextDue(kind: DueKind, at: string | undefined): Pick<Disbursement, 'due' | 'leasedUntil'> {
  return { due: at === undefined ? undefined : { kind, at }, leasedUntil: undefined };
}

export const NOTHING_DUE: Pick<Disbursement, 'due' | 'leasedUntil'> = { due: undefined, leasedUntil: undefined };

export function isFinal(status: DisbursementStatus): boolean {
  return FINAL_STATUSES.has(status);
}
