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
  const base = record.sending ? policy.staleClaimMs : record.status === 'UNKNOWN' ? policy.unknownAfterMs : policy.pendingAfterMs;
  const delay = Math.min(policy.maxDelayMs, base * 2 ** Math.min(record.checkAttempts, 20));
  return new Date(now.getTime() + delay).toISOString();
}

/** The record with its next check set from its (new) state. */
export function scheduled(record: Disbursement, now: Date, policy: ReconcilePolicy): Disbursement {
  return { ...record, nextCheckAt: nextCheckAt(record, now, policy) };
}
