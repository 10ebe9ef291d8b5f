import { GatewayError, invalidState } from './disbursement.errors';
import { ApprovalState, Disbursement, StatusEvent, nextDue } from './disbursement.model';
import { cancelledUnsent, changed } from './disbursement.record';
import { Actor } from './payout.controls';
import { sealed, SealKey } from './payout.seal';

/*
 * Pure changes of a payout under approval. Holding, rejecting, cancelling, expiring and undoing an
 * approval are changes a client sees (published); the approval itself turns the record into an
 * ordinary create claim ("sending", UNKNOWN) and is bookkeeping, so subscribers see AWAITING_APPROVAL,
 * then the provider's PENDING.
 */

/** A new claim held for approval: nothing is sent; the rechecker looks at it again when it expires. */
export function heldForApproval(
  claim: Disbursement,
  actor: Actor,
  ttlSeconds: number,
  /** Why it is held: above the threshold, or a new payee. */
  why: string,
  at: Date,
): Disbursement {
  const when = at.toISOString();
  const expiresAt = new Date(at.getTime() + ttlSeconds * 1000).toISOString();
  const event: StatusEvent = {
    status: 'AWAITING_APPROVAL',
    message: `Awaiting approval by a second person: ${why}`,
    source: 'CREATE',
    at: when,
    actor: actor.name,
  };
  const approval: ApprovalState = { requestedBy: actor.name, requesterId: actor.id, expiresAt };
  return changed(
    claim,
    {
      ...claim,
      status: 'AWAITING_APPROVAL',
      sending: false,
      approval,
      history: [event],
      ...nextDue('APPROVAL_EXPIRY', expiresAt),
    },
    when,
  );
}

/**
 * Whoever asked for the payout, none of whom may approve it: the requester its seal covers, and the one
 * its approval names (a record sealed before requesters were), so a row edit of either never lets a
 * requester approve.
 */
export function requesterIdsOf(record: Disbursement): string[] {
  return [record.requesterId, record.approval?.requesterId].filter((id) => id !== undefined);
}

export function isExpired(record: Disbursement, now: Date): boolean {
  return record.approval !== undefined && now.getTime() >= Date.parse(record.approval.expiresAt);
}

/**
 * Approved: it becomes an ordinary create claim, sent by the at-most-once create protocol, sealed with
 * the decision (who approved it, when) under the key in use.
 */
export function approvedClaim(current: Disbursement, actor: Actor, at: string, key: SealKey): Disbursement {
  const approval = current.approval as ApprovalState;
  return sealed(key, {
    ...current,
    decision: { kind: 'APPROVED', byId: actor.id, by: actor.name, at },
    status: 'UNKNOWN',
    sending: true,
    sentAt: at,
    updatedAt: at,
    approval: { ...approval, decision: 'APPROVED', decidedBy: actor.name, decidedAt: at },
    history: [
      ...current.history,
      { status: 'AWAITING_APPROVAL', message: `Approved by ${actor.name}`, source: 'CONTROL', at, actor: actor.name },
    ],
  });
}

/**
 * The provider took nothing (refused, unreachable): the approval is undone and the payout awaits
 * approval again, its seal covering its request alone. Published, since clients may have seen it
 * UNKNOWN meanwhile (a send whose outcome was unknown, then a retry the provider refused).
 */
export function approvalUndone(current: Disbursement, why: string, at: string, key: SealKey): Disbursement {
  const { requestedBy, requesterId, expiresAt } = current.approval as ApprovalState;
  return changed(
    current,
    sealed(key, {
      ...current,
      decision: undefined,
      status: 'AWAITING_APPROVAL',
      sending: false,
      sentAt: undefined,
      approval: { requestedBy, requesterId, expiresAt },
      ...nextDue('APPROVAL_EXPIRY', expiresAt),
      history: [
        ...current.history,
        { status: 'AWAITING_APPROVAL', message: `Not sent (${why}); awaiting approval again`, source: 'CONTROL', at },
      ],
    }),
    at,
  );
}

type Ending = { decision: 'REJECTED' | 'CANCELLED' | 'EXPIRED'; actor?: Actor; reason?: string };

const ENDING_MESSAGES: Record<Ending['decision'], (e: Ending) => string> = {
  REJECTED: (e) => `Rejected by ${e.actor?.name}${e.reason ? `: ${e.reason}` : ''}; never sent`,
  CANCELLED: (e) => `Cancelled by ${e.actor?.name} before approval; never sent`,
  EXPIRED: () => 'Expired: not approved in time; never sent',
};

/** Rejected, cancelled or expired: CANCELLED with a message saying which, never sent. */
export function endedBeforeApproval(current: Disbursement, ending: Ending, at: string): Disbursement {
  const approval = current.approval as ApprovalState;
  const message = ENDING_MESSAGES[ending.decision](ending);
  return cancelledUnsent(current, message, at, ending.actor?.name, {
    approval: {
      ...approval,
      decision: ending.decision,
      decidedBy: ending.actor?.name,
      decidedAt: at,
      reason: ending.reason,
    },
  });
}

/** Why a payout cannot be decided on: it does not await approval (any more). */
export function notAwaiting(record: Disbursement): GatewayError {
  const decision = record.approval?.decision;
  const why = !record.approval
    ? record.sendAt !== undefined
      ? 'it is no longer scheduled'
      : 'it never awaited approval'
    : decision === 'APPROVED'
      ? `it was already approved by ${record.approval.decidedBy}`
      : `it was ${decision?.toLowerCase() ?? 'decided'} and never sent`;
  return invalidState(record.referenceId, record.status, why);
}
