import { Disbursement, isFinal } from './disbursement.model';

export interface ReconcilePolicy {
  /** First status check after an outcome became unknown; doubles with each attempt. */
  unknownAfterMs: number;
  /** How long a PENDING payout may wait for its callback before the provider is asked; doubles after. */
  pendingAfterMs: number;
  /** Longest wait between two checks of one payout. */
  maxDelayMs: number;
  /** A claim still marked as sending after this long belongs to a process that died mid-call. */
  staleClaimMs: number;
}

/** When the reconciler should next look at a record: never once final, sooner while unknown. */
export function nextCheckAt(record: Disbursement, now: Date, policy: ReconcilePolicy): string | undefined {
  if (isFinal(record.status)) return undefined;
  // Awaiting approval: nothing to ask the provider; the reconciler comes back when the approval expires.
  if (record.status === 'AWAITING_APPROVAL') return record.approval?.expiresAt;
  const base = record.sending
    ? policy.staleClaimMs
    : record.status === 'UNKNOWN'
      ? policy.unknownAfterMs
      : policy.pendingAfterMs;
  const delay = Math.min(policy.maxDelayMs, base * 2 ** Math.min(record.checkAttempts, 20));
  return new Date(now.getTime() + delay).toISOString();
}

/** The record with its next check set from its (new) state. */
export function scheduled(record: Disbursement, now: Date, policy: ReconcilePolicy): Disbursement {
  return { ...record, nextCheckAt: nextCheckAt(record, now, policy) };
}

/** Older than any create may take: a claim this old that still says "sending" belongs to a dead process. */
export function isStale(record: Disbursement, now: Date, policy: ReconcilePolicy): boolean {
  return now.getTime() - Date.parse(record.updatedAt) > policy.staleClaimMs;
}

/** A create may still be under way: its own answer settles the record, not the reconciler. */
export function stillSending(record: Disbursement, now: Date, policy: ReconcilePolicy): boolean {
  return record.sending && !isStale(record, now, policy);
}

/** A status change restarts the backoff; the next check follows from the new state. */
export function rescheduled(
  current: Disbursement,
  next: Disbursement,
  now: Date,
  policy: ReconcilePolicy,
): Disbursement {
  if (next.status === current.status && next.sending === current.sending) return next;
  return scheduled({ ...next, checkAttempts: 0 }, now, policy);
}

/**
 * A due record taken by one replica until `until`: its next check moves past the lease, so no other
 * replica asks about it meanwhile. Undefined when the record is no longer as seen (another took it).
 */
export function leased(current: Disbursement, seen: Disbursement, until: Date): Disbursement | undefined {
  return current.nextCheckAt === seen.nextCheckAt ? { ...current, nextCheckAt: until.toISOString() } : undefined;
}
