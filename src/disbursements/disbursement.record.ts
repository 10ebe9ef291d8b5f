import { CHANNEL_OF_PAYMENT_TYPE, CHANNEL_RULES } from './channel.rules';
import { canonicalDecimal } from './decimal.parse';
import {
  Disbursement,
  DisbursementRequest,
  ProviderRecord,
  RelayAttempt,
  StatusEvent,
  gatewaySends,
  nextDue,
  NOTHING_DUE,
} from './disbursement.model';

/**
 * Pure changes of one record. The `version` rule lives here: a change a client can see (a status,
 * a provider field, a new history entry) goes through `changed`, which bumps `version` and
 * `updatedAt` and is published; bookkeeping (claims, leases, next checks, the relay audit,
 * attaching a request to a record the provider confirmed, a repeated step counted on the last
 * history entry, the audit's count of repeats) keeps `version`, and is not published.
 */
export function changed(current: Disbursement, next: Disbursement, at: string): Disbursement {
  return { ...next, updatedAt: at, version: current.version + 1 };
}

/**
 * CANCELLED with nothing sent: every such ending (withdrawn before its time, refused at its send, its approval
 * rejected, cancelled or expired, its payee archived) is this one change, with its message and who ended it;
 * `changes` holds what an ending adds, such as the approval's decision. Its decision to send and its seal go:
 * a row restored to an earlier state by someone with the database carries none of its own.
 */
export function cancelledUnsent(
  current: Disbursement,
  message: string,
  at: string,
  actor?: string,
  changes: Partial<Disbursement> = {},
): Disbursement {
  return changed(
    current,
    {
      ...current,
      ...changes,
      status: 'CANCELLED',
      sending: false,
      decision: undefined,
      seal: undefined,
      message,
      ...NOTHING_DUE,
      history: [...current.history, { status: 'CANCELLED', message, source: 'CONTROL', at, ...(actor && { actor }) }],
    },
    at,
  );
}

/** A change is published exactly when its version moved. */
export function isPublished(before: Disbursement | undefined, after: Disbursement | undefined): boolean {
  return after !== undefined && (before === undefined || after.version !== before.version);
}

/**
 * Whether a record is a client's payout the moment it is stored: one held for approval is; a claim
 * still sending (its create's answer settles it) and a record learnt only from a callback are not yet.
 */
export function shownOnInsert(record: Disbursement): boolean {
  return !record.sending && record.request !== undefined;
}

/** A relay attempt noted on the record (no status change, so nothing is published). */
export function withRelayAttempt(
  current: Disbursement,
  relay: { url: string; delivered: boolean; gaveUp: boolean; attempt: RelayAttempt },
): Disbursement {
  const { url, delivered, gaveUp, attempt } = relay;
  return { ...current, relay: { url, delivered, gaveUp, attempts: [...(current.relay?.attempts ?? []), attempt] } };
}

type NewFields = Omit<Disbursement, 'status' | 'updatedAt' | 'version' | 'history' | 'deliveryIds' | 'checkAttempts'>;

/** A record the provider has said nothing about yet: UNKNOWN, no history, version 0. */
export function newRecord(fields: NewFields, at: string): Disbursement {
  return { ...fields, status: 'UNKNOWN', updatedAt: at, version: 0, history: [], deliveryIds: [], checkAttempts: 0 };
}

/** The claim stored before a create is sent: "sending" until the provider's answer (or its absence) settles it. */
export function newClaim(
  merchantId: string,
  request: DisbursementRequest,
  fingerprint: string,
  at: string,
  requestId?: string,
  traceparent?: string,
): Disbursement {
  return newRecord(
    {
      merchantId,
      referenceId: request.referenceId,
      requestId,
      ...(traceparent !== undefined && { traceparent }),
      channel: request.channel,
      request,
      fingerprint,
      sending: true,
      paymentType: CHANNEL_RULES[request.channel].paymentType,
      amount: request.amount,
      currency: request.currency,
      accountNumber: request.accountNumber,
      narration: request.narration,
    },
    at,
  );
}

/** Longest text kept from a provider record the gateway did not create (an orphan), so a record stays small. */
const ORPHAN_TEXT_LIMIT = 256;
const bounded = (value: string | undefined) => value?.slice(0, ORPHAN_TEXT_LIMIT);

/** A payout the provider confirmed that no create of this gateway claimed: its fields are the provider's, bounded. */
export function orphanRecord(merchantId: string, answer: ProviderRecord, at: string): Disbursement {
  return newRecord(
    {
      merchantId,
      referenceId: answer.referenceId,
      channel: CHANNEL_OF_PAYMENT_TYPE[answer.paymentType],
      sending: false,
      paymentType: 'OTHER',
      amount: answer.amount ?? '0',
      currency: bounded(answer.currency) ?? '',
      accountNumber: bounded(answer.accountNumber) ?? '',
    },
    at,
  );
}

/** Bounds every text field of a provider record, for records the gateway did not create. */
export function boundedAnswer(answer: ProviderRecord): ProviderRecord {
  return {
    ...answer,
    providerStatus: answer.providerStatus.slice(0, ORPHAN_TEXT_LIMIT),
    providerPaymentType: bounded(answer.providerPaymentType),
    narration: bounded(answer.narration),
    identifier: bounded(answer.identifier),
    externalId: bounded(answer.externalId),
    ipAddress: bounded(answer.ipAddress),
    createdAt: bounded(answer.createdAt),
    message: bounded(answer.message),
  };
}

/** The content that makes a payout what it is; a record of the provider with other content is another payout. */
const CONTENT = ['amount', 'currency', 'accountNumber'] as const;

/** Request fields whose value the provider's record contradicts (fields the provider left out contradict nothing). */
export function contentDiffers(
  request: Pick<DisbursementRequest, (typeof CONTENT)[number]>,
  answer: ProviderRecord,
): string[] {
  return CONTENT.filter((field) => {
    const theirs = answer[field];
    if (theirs === undefined) return false;
    if (field === 'amount') return canonicalDecimal(request.amount) !== canonicalDecimal(theirs);
    return request[field] !== theirs;
  });
}

/** The same step as the last one: same status, source, message, provider status and actor. */
function repeats(last: StatusEvent | undefined, event: StatusEvent): last is StatusEvent {
  return (
    last !== undefined &&
    last.status === event.status &&
    last.source === event.source &&
    last.message === event.message &&
    last.providerStatus === event.providerStatus &&
    last.actor === event.actor
  );
}

/**
 * `next` with `event` noted in its history, as a change a client sees. An event that repeats the
 * last one (a retry refused the same way again) is counted on it instead (`repeated`, `lastAt`):
 * the history stays bounded however often a client retries, and the write is bookkeeping: no new
 * version, nothing published or logged.
 */
export function noted(current: Disbursement, next: Disbursement, event: StatusEvent): Disbursement {
  const last = current.history.at(-1);
  if (!repeats(last, event)) return changed(current, { ...next, history: [...current.history, event] }, event.at);
  const counted = { ...last, repeated: (last.repeated ?? 1) + 1, lastAt: event.at };
  return { ...next, history: [...current.history.slice(0, -1), counted] };
}

/**
 * A create whose answer never came: no longer in flight, sent at the latest now (`at`, when the call
 * ended); when still UNKNOWN, the reason goes in its history.
 */
export function markUnknown(current: Disbursement, reason: string, at: string): Disbursement {
  // A callback may have settled it meanwhile: then only the claim ends, which no client sees.
  if (current.status !== 'UNKNOWN') return { ...current, sending: false };
  const event: StatusEvent = { status: current.status, message: `Outcome unknown: ${reason}`, source: 'CREATE', at };
  return noted(current, { ...current, sending: false, sentAt: at }, event);
}

export const NEVER_RECEIVED =
  'The provider has no record of this payout: it was never received. Retry the same request to send it.';

export const SENT_AGAIN =
  'The provider has no record of this payout: it was never received. The gateway sends it again, as it was decided.';

/**
 * The provider says it never received this UNKNOWN payout, and no send of it can still be on its
 * way in: say so. One the gateway sends on its own decision (gatewaySends) is due to be sent again at
 * once, through the checks every decided send passes; any other waits for its client's retry, and
 * nobody asks about it any more. No send is outstanding, so the next one waits for nothing.
 */
export function markNeverReceived(current: Disbursement, at: string): Disbursement {
  const again = gatewaySends(current);
  const message = again ? SENT_AGAIN : NEVER_RECEIVED;
  const event: StatusEvent = { status: current.status, message, source: 'STATUS_CHECK', at };
  const due = again ? nextDue('SEND', at) : NOTHING_DUE;
  return noted(current, { ...current, sending: false, sentAt: undefined, ...due }, event);
}

/** A confirmed orphan becomes this request's record: the request is attached, nothing a client sees changes. */
export function adopted(current: Disbursement, request: DisbursementRequest, fingerprint: string): Disbursement {
  return { ...current, request, fingerprint };
}
