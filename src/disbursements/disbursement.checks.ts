import { Disbursement, Due, gatewaySends } from './disbursement.model';

export interface CheckPolicy {
  /** First status check after an outcome became unknown; doubles with each attempt. */
  unknownAfterMs: number;
  /** How long a PENDING payout may wait for its callback before the provider is asked; doubles after. */
  pendingAfterMs: number;
  /** Longest wait between two checks of one payout. */
  maxDelayMs: number;
  /** A claim still marked as sending after this long belongs to a process that died mid-call. */
  staleClaimMs: number;
  /**
   * RESEND_AFTER_SECONDS: a provider may take a while to take a create in, answering "not found"
   * meanwhile, so its "not found" means "never received" only once this long has passed since the
   * last send could have left the gateway.
   */
  resendAfterMs: number;
  /** SCHEDULE_LATE_LIMIT_SECONDS: how long after its sendAt a scheduled payout may still be sent; then EXPIRED. */
  scheduleLateLimitMs: number;
  /** SCHEDULE_MAX_AHEAD_DAYS in ms: how far ahead a new payout's sendAt may be. */
  scheduleMaxAheadMs: number;
}

/**
 * What is due next for a record in its (new) state, and when: nothing once final; the approval's
 * expiry while it awaits one; its send at its time while scheduled; otherwise a status check, sooner
 * while unknown. Exhaustive over the statuses: a new one does not compile until it says what is due.
 */
export function dueOf(record: Disbursement, now: Date, policy: CheckPolicy): Due | undefined {
  switch (record.status) {
    case 'SUCCESSFUL':
    case 'FAILED':
    case 'CANCELLED':
    case 'EXPIRED':
      return undefined;
    // Nothing to ask the provider: the due loop comes back when the approval expires.
    case 'AWAITING_APPROVAL':
      return record.approval && { kind: 'APPROVAL_EXPIRY', at: record.approval.expiresAt };
    // Nothing to ask either: the due loop sends it at its time.
    case 'SCHEDULED':
      return record.sendAt === undefined ? undefined : { kind: 'SEND', at: record.sendAt };
    case 'PENDING':
    case 'UNKNOWN': {
      const gateways = record.status === 'UNKNOWN' && gatewaySends(record);
      // Confirmed never received (sentAt cleared), on the gateway's own decision: sent again now.
      if (gateways && !record.sending && record.sentAt === undefined) return { kind: 'SEND', at: now.toISOString() };
      const base = record.sending
        ? policy.staleClaimMs
        : record.status === 'UNKNOWN'
          ? policy.unknownAfterMs
          : policy.pendingAfterMs;
      const delay = Math.min(policy.maxDelayMs, base * 2 ** Math.min(record.checkAttempts, 20));
      return { kind: gateways ? 'RESEND' : 'RECHECK', at: new Date(now.getTime() + delay).toISOString() };
    }
    default:
      return unhandled(record.status);
  }
}

/** The record with what is due next set from its (new) state; a lease on it ends. */
export function withDueNext(record: Disbursement, now: Date, policy: CheckPolicy): Disbursement {
  return { ...record, due: dueOf(record, now, policy), leasedUntil: undefined };
}

/**
 * A record the due loop took for a kind its status no longer calls for (a write that moved its status
 * left its due as it was): what is due follows from its status now, so it is never stuck; undefined
 * when it already fits (nothing to write).
 */
export function redue(current: Disbursement, now: Date, policy: CheckPolicy): Disbursement | undefined {
  const fitting = dueOf(current, now, policy);
  if (fitting?.kind === current.due?.kind && current.leasedUntil === undefined) return undefined;
  return { ...current, due: fitting, leasedUntil: undefined };
}

/** A case the compiler proved cannot happen; reached only by data from outside the types. */
export function unhandled(value: never): never {
  throw new Error(`unhandled case: ${String(value)}`);
}

/** Older than any create may take: a claim this old that still says "sending" belongs to a dead process. */
export function isStale(record: Disbursement, now: Date, policy: CheckPolicy): boolean {
  return now.getTime() - Date.parse(record.updatedAt) > policy.staleClaimMs;
}

/** A create may still be under way: its own answer settles the record, not the rechecker. */
export function stillSending(record: Disbursement, now: Date, policy: CheckPolicy): boolean {
  return record.sending && !isStale(record, now, policy);
}

/**
 * The latest moment the last send of this payout could have left the gateway (ms), or undefined when
 * none is in doubt: nothing was sent, or the provider has answered about it (the status is no longer
 * UNKNOWN). A claim still marked sending may leave until it goes stale: its call starts right after
 * the claim and is aborted at UPSTREAM_TIMEOUT_MS, half the stale time.
 */
export function lastDeparture(record: Disbursement, policy: CheckPolicy): number | undefined {
  if (record.sentAt === undefined || record.status !== 'UNKNOWN') return undefined;
  return Date.parse(record.sentAt) + (record.sending ? policy.staleClaimMs : 0);
}

/** When a provider "not found" starts to mean "never received" (ms); undefined: it already does. */
export function resendableAt(record: Disbursement, policy: CheckPolicy): number | undefined {
  const left = lastDeparture(record, policy);
  return left === undefined ? undefined : left + policy.resendAfterMs;
}

/**
 * Whether the provider's "not found" can be trusted: RESEND_AFTER_SECONDS have passed since the last
 * send could have left (at the edge, it has). Until then the first send may still be on its way in,
 * and a second one could pay twice.
 */
export function notFoundMeansNeverReceived(record: Disbursement, now: Date, policy: CheckPolicy): boolean {
  const at = resendableAt(record, policy);
  return at === undefined || now.getTime() >= at;
}

/** A claim whose process is gone ends: `sending` goes, and `sentAt` becomes the latest moment its send could have left. */
export function claimEnded(current: Disbursement, policy: CheckPolicy): Disbursement {
  if (!current.sending) return current;
  const left = lastDeparture(current, policy);
  return { ...current, sending: false, ...(left !== undefined && { sentAt: new Date(left).toISOString() }) };
}

/**
 * The provider does not have it yet, but its last send may still be on its way in: check again, a
 * little later each time, and at the latest when "not found" becomes trustworthy.
 */
export function notFoundYet(current: Disbursement, now: Date, policy: CheckPolicy): Disbursement {
  const ended = claimEnded(current, policy);
  const next = withDueNext({ ...ended, checkAttempts: current.checkAttempts + 1 }, now, policy);
  const trusted = resendableAt(next, policy);
  if (trusted === undefined || next.due === undefined || Date.parse(next.due.at) <= trusted) return next;
  return { ...next, due: { ...next.due, at: new Date(trusted).toISOString() } };
}

/** A status change restarts the backoff; what is due next follows from the new state. */
export function withDueNextOnChange(
  current: Disbursement,
  next: Disbursement,
  now: Date,
  policy: CheckPolicy,
): Disbursement {
  if (next.status === current.status && next.sending === current.sending) return next;
  return withDueNext({ ...next, checkAttempts: 0 }, now, policy);
}

/**
 * A due record taken by one replica until `until`: no other replica takes it meanwhile. Undefined
 * when the record is no longer as seen (another took it, or a write set what is due next).
 */
export function leased(current: Disbursement, seen: Disbursement, until: Date): Disbursement | undefined {
  const same =
    current.due?.kind === seen.due?.kind &&
    current.due?.at === seen.due?.at &&
    current.leasedUntil === seen.leasedUntil;
  return same ? { ...current, leasedUntil: until.toISOString() } : undefined;
}
