import { Disbursement, nextDue, NOTHING_DUE } from './disbursement.model';
import { cancelledUnsent, changed } from './disbursement.record';
import { CheckPolicy, withDueNext } from './disbursement.checks';
import { Actor } from './payout.controls';

/*
 * Pure changes of a scheduled payout (one whose request has a `sendAt` later than when it arrived).
 * Scheduling, cancelling and expiring are changes a client sees (published); the send itself turns
 * the record into an ordinary create claim ("sending", UNKNOWN) and is bookkeeping, as an approval's.
 */

/** Whether the request asks for a time later than `now`: stored SCHEDULED, nothing sent. */
export function sendsLater(sendAt: string | undefined, now: Date): sendAt is string {
  return sendAt !== undefined && Date.parse(sendAt) > now.getTime();
}

/** How far in the past a sendAt may be (clock skew between client and gateway): it is then sent at once. */
const SEND_AT_SKEW_MS = 5_000;

/**
 * Why a new payout's sendAt is refused: in the past beyond clock skew, or further ahead than
 * SCHEDULE_MAX_AHEAD_DAYS. Asked of new payouts alone: a retry of one that exists is answered from it.
 */
export function sendAtRefusal(sendAt: string | undefined, now: Date, policy: CheckPolicy): string | undefined {
  if (sendAt === undefined) return undefined;
  const at = Date.parse(sendAt);
  if (at < now.getTime() - SEND_AT_SKEW_MS) return 'must not be in the past';
  if (at > now.getTime() + policy.scheduleMaxAheadMs)
    return `must be at most ${Math.round(policy.scheduleMaxAheadMs / 86_400_000)} days ahead (SCHEDULE_MAX_AHEAD_DAYS)`;
  return undefined;
}

/** A new claim (or one just approved) waiting for its time; the rechecker's due loop picks it up at `sendAt`. */
export function scheduledFor(claim: Disbursement, sendAt: string, at: Date, actor?: Actor): Disbursement {
  const when = at.toISOString();
  return changed(
    claim,
    {
      ...claim,
      status: 'SCHEDULED',
      sending: false,
      sentAt: undefined,
      sendAt,
      ...nextDue('SEND', sendAt),
      history: [
        ...claim.history,
        { status: 'SCHEDULED', message: `Scheduled for ${sendAt}`, source: 'CREATE', at: when, actor: actor?.name },
      ],
    },
    when,
  );
}

/** Past its time by more than SCHEDULE_LATE_LIMIT_SECONDS: it may no longer be sent. */
export function isTooLate(record: Disbursement, now: Date, policy: CheckPolicy): boolean {
  return record.sendAt !== undefined && now.getTime() > Date.parse(record.sendAt) + policy.scheduleLateLimitMs;
}

/**
 * Due: it becomes an ordinary create claim, sent by the at-most-once create protocol; its next check
 * is a claim's, so a process that dies mid-send leaves it to the rechecker, never unwatched.
 */
export function dueClaim(current: Disbursement, now: Date, policy: CheckPolicy): Disbursement {
  const at = now.toISOString();
  return withDueNext({ ...current, status: 'UNKNOWN', sending: true, sentAt: at, updatedAt: at }, now, policy);
}

/** Not sent in time (the gateway was down, the provider refused meanwhile): EXPIRED, never sent. */
export function expiredUnsent(current: Disbursement, at: string): Disbursement {
  const limit = 'SCHEDULE_LATE_LIMIT_SECONDS';
  const message = `Expired: not sent within ${limit} after its sendAt ${current.sendAt}; never sent`;
  return changed(
    current,
    {
      ...current,
      status: 'EXPIRED',
      sending: false,
      sentAt: undefined,
      decision: undefined,
      seal: undefined,
      message,
      ...NOTHING_DUE,
      history: [...current.history, { status: 'EXPIRED', message, source: 'CONTROL', at }],
    },
    at,
  );
}

/** Withdrawn before its time by anyone of the merchant: CANCELLED, never sent. */
export function cancelledBeforeTime(current: Disbursement, actor: Actor, at: string): Disbursement {
  const message = `Cancelled by ${actor.name} before its time; never sent`;
  return cancelledUnsent(current, message, at, actor.name);
}

/**
 * The provider took nothing at its time (refused, unreachable, its budget spent): SCHEDULED again and
 * tried a little later each time, at the latest when it would expire. Published: clients may have
 * seen it UNKNOWN meanwhile.
 */
export function sendPutOff(current: Disbursement, why: string, now: Date, policy: CheckPolicy): Disbursement {
  const at = now.toISOString();
  const delay = Math.min(policy.maxDelayMs, policy.unknownAfterMs * 2 ** Math.min(current.checkAttempts, 20));
  const expiresAt = Date.parse(current.sendAt ?? at) + policy.scheduleLateLimitMs + 1;
  const retryAt = new Date(Math.min(now.getTime() + delay, expiresAt)).toISOString();
  return changed(
    current,
    {
      ...current,
      status: 'SCHEDULED',
      sending: false,
      sentAt: undefined,
      ...nextDue('SEND', retryAt),
      checkAttempts: current.checkAttempts + 1,
      history: [
        ...current.history,
        { status: 'SCHEDULED', message: `Not sent (${why}); trying again`, source: 'CONTROL', at },
      ],
    },
    at,
  );
}
