import { AuditAction, auditOf } from './audit.entry';
import { Beneficiary } from './beneficiary.model';
import { DomainContext } from './disbursement.context';
import { AuditRule, Merchant } from './disbursement.ports';
import { Disbursement, nextDue } from './disbursement.model';
import { cancelledUnsent, changed, noted } from './disbursement.record';
import { ControlEvent, DEFAULT_APPROVAL_TTL_SECONDS, fromMinor, limitOf, toMinor } from './payout.controls';
import { decisionAllows, sealed, sealState } from './payout.seal';
import { trailFacts, TrailFacts } from './payout.trail';

/*
 * What is checked again before a payout decided earlier is approved or sent (held then approved,
 * scheduled, sent again after it was never received): its seal (payout.seal.ts), its audit trail
 * (payout.trail.ts: a payout that ended stays ended), the decision that lets the gateway send it, its
 * beneficiary as it is now, and the merchant's controls as they are now. A refused payout ends
 * CANCELLED, never sent, with an audit entry saying why.
 */

/** Why it may not be sent now, and what becomes of it; undefined: it may be sent. */
export type SendVerdict =
  | { kind: 'refused'; next: Disbursement; action: AuditAction; why: string }
  /** Its beneficiary's new details await approval: it waits, unchanged. */
  | { kind: 'waiting'; why: string }
  /** Above approvalAbove as it is now, never approved: held for a second person. */
  | { kind: 'held'; next: Disbursement; why: string }
  /** Sealed under a key this gateway does not seal with: held for an operator, never called tampered. */
  | { kind: 'elsewhere'; keyId: string; why: string };

/** What a recheck reads before the atomic change that runs it: the beneficiary as the book has it, and the trail. */
export interface RecheckReads {
  /** undefined: a payout made to no beneficiary; null: its beneficiary is gone. */
  payee: Beneficiary | null | undefined;
  trail: TrailFacts;
}

/** The beneficiary a payout was made to, as the book has it now, and what its audit trail records. */
export async function recheckReads(ctx: DomainContext, record: Disbursement): Promise<RecheckReads> {
  const [payee, trail] = await Promise.all([
    record.beneficiaryId === undefined
      ? undefined
      : ctx.book.beneficiary(record.merchantId, record.beneficiaryId).then((b) => b ?? null),
    trailFacts(ctx.records, ctx.entryKeys, record),
  ]);
  return { payee, trail };
}

/**
 * The checks, in order: the seal (made under another key: held for an operator; not this record's:
 * refused); the trail (ended: refused); for a send, the decision that lets the gateway send it; the
 * beneficiary (archived or gone: cancelled; new details awaiting approval: it waits); maxAmount now
 * (refused); for a send decided without a second person, approvalAbove now (held). An approval
 * (`purpose` 'approve') is itself the decision.
 */
export function recheckBeforeSend(
  ctx: DomainContext,
  merchant: Merchant,
  current: Disbursement,
  reads: RecheckReads,
  now: Date,
  purpose: 'send' | 'approve',
): SendVerdict | undefined {
  const { payee, trail } = reads;
  const seal = sealState(ctx.sealKeys, current);
  if (seal.kind === 'elsewhere') {
    const why = `it was sealed under audit key ${seal.keyId}, which this gateway does not seal with: held for an operator until a gateway whose key in use that is sends it (docs/operations.md, the audit signing key)`;
    return { kind: 'elsewhere', keyId: seal.keyId, why };
  }
  if (seal.kind === 'broken') return refused(current, AuditAction.SEND_REFUSED, seal.why, now);
  if (trail.ended)
    return refused(
      current,
      AuditAction.SEND_REFUSED,
      `its audit trail records it ${trail.ended.status?.toLowerCase() ?? 'ended'} (${trail.ended.action} at sequence ${trail.ended.sequence}): an ended payout is never sent`,
      now,
    );
  const decision = seal.kind === 'sealed' ? current.decision : trail.decision;
  if (purpose === 'send') {
    const why = decisionAllows(current, decision, now);
    if (why) return refused(current, AuditAction.SEND_REFUSED, why, now);
  }
  if (payee === null || payee?.status === 'ARCHIVED')
    return refused(current, AuditAction.CANCELLED, `its beneficiary ${current.beneficiaryId} was archived`, now);
  if (payee?.status === 'AWAITING_APPROVAL')
    return { kind: 'waiting', why: `its beneficiary ${payee.id}'s new account details await approval` };
  const minor = toMinor(current.amount);
  const max = limitOf(merchant.controls, 'maxAmount', current.currency);
  if (max !== undefined && minor > max)
    return refused(current, AuditAction.LIMIT_REFUSED, `maxAmount: above ${fromMinor(max)} ${current.currency}`, now);
  const threshold = limitOf(merchant.controls, 'approvalAbove', current.currency);
  if (purpose === 'send' && threshold !== undefined && minor > threshold && decision?.kind !== 'APPROVED')
    return heldAtSend(ctx, merchant, current, `above ${fromMinor(threshold)} ${current.currency}`, now);
  return undefined;
}

function refused(current: Disbursement, action: AuditAction, why: string, now: Date): SendVerdict {
  const at = now.toISOString();
  const message = `Refused before sending: ${why}; never sent`;
  const next = cancelledUnsent(current, message, at, undefined, { sentAt: undefined });
  return { kind: 'refused', next, action, why };
}

/**
 * Held at its time as a new payout above the threshold would be; its requester is whoever asked for it.
 * The decision it was scheduled with no longer lets it go: its seal covers its request alone again.
 */
function heldAtSend(
  ctx: DomainContext,
  merchant: Merchant,
  current: Disbursement,
  why: string,
  now: Date,
): SendVerdict {
  const at = now.toISOString();
  const ttl = merchant.controls?.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
  const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
  const requestedBy = current.createdBy ?? 'unknown';
  const message = `Awaiting approval by a second person: ${why} (payout controls at its time)`;
  const next = changed(
    current,
    sealed(ctx.sealKeys[0], {
      ...current,
      status: 'AWAITING_APPROVAL',
      sending: false,
      sentAt: undefined,
      decision: undefined,
      approval: {
        requestedBy,
        requesterId: current.requesterId ?? current.reservation?.actorId ?? requestedBy,
        expiresAt,
      },
      ...nextDue('APPROVAL_EXPIRY', expiresAt),
      history: [...current.history, { status: 'AWAITING_APPROVAL', message, source: 'CONTROL', at }],
    }),
    at,
  );
  return { kind: 'held', next, why };
}

/**
 * A send not made now (sealed elsewhere, or its beneficiary awaiting approval): its state as it was,
 * asked again after RECONCILE_UNKNOWN_AFTER_MS (no backoff: during a rolling rotation a replica whose
 * key in use it is takes it at its next lease), the reason noted once in its history (repeats are
 * counted there, nothing is published again).
 */
export function notSentYet(ctx: DomainContext, current: Disbursement, why: string, now: Date): Disbursement {
  const retryAt = new Date(now.getTime() + ctx.policy.unknownAfterMs).toISOString();
  const kind = current.due?.kind ?? 'SEND';
  return noted(
    current,
    { ...current, ...nextDue(kind, retryAt) },
    { status: current.status, message: `Not sent: ${why}`, source: 'CONTROL', at: now.toISOString() },
  );
}

/** The audit entry of a verdict's change: refused with its action, held as HELD. */
export function recheckAudit(verdict: SendVerdict): AuditRule {
  return (before, after) => {
    if (after.version === before.version || verdict.kind === 'waiting' || verdict.kind === 'elsewhere') return [];
    const action = verdict.kind === 'held' ? AuditAction.HELD : verdict.action;
    return [auditOf(after, action, after.updatedAt, { detail: after.history.at(-1)?.message ?? verdict.why })];
  };
}

/** The control action a verdict that changed the payout is, for its log line and metric. */
export function verdictEvent(
  merchant: Merchant,
  referenceId: string,
  verdict: Exclude<SendVerdict, { kind: 'waiting' } | { kind: 'elsewhere' }>,
): ControlEvent {
  const base = { merchantId: merchant.id, referenceId };
  if (verdict.kind === 'held') return { ...base, action: 'held' };
  if (verdict.action === AuditAction.LIMIT_REFUSED) return { ...base, action: 'refused', limit: 'maxAmount' };
  return { ...base, action: 'cancelled' };
}
