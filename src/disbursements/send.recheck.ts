import { AuditAction, auditOf } from './audit.entry';
import { Beneficiary } from './beneficiary.model';
import { DomainContext } from './disbursement.context';
import { AuditRule, Merchant } from './disbursement.ports';
import { Disbursement, nextDue } from './disbursement.model';
import { cancelledUnsent, changed } from './disbursement.record';
import { ControlEvent, DEFAULT_APPROVAL_TTL_SECONDS, fromMinor, limitOf, toMinor } from './payout.controls';
import { sealHolds } from './request.seal';

/*
 * What is checked again before a payout decided earlier is sent (held then approved, scheduled): the
 * record against its keyed request (request.seal.ts), its beneficiary as it is now, and the merchant's
 * controls as they are now. A refused payout ends CANCELLED, never sent, with an audit entry saying why.
 */

/** Why it may not be sent now, and what becomes of it; undefined: it may be sent. */
export type SendVerdict =
  | { kind: 'refused'; next: Disbursement; action: AuditAction; why: string }
  /** Its beneficiary's new details await approval: it waits, unchanged. */
  | { kind: 'waiting'; why: string }
  /** Above approvalAbove as it is now, never approved: held for a second person. */
  | { kind: 'held'; next: Disbursement; why: string };

/** The beneficiary a payout was made to, as the book has it now; undefined for a payout made to no beneficiary. */
export async function payeeOf(ctx: DomainContext, record: Disbursement): Promise<Beneficiary | null | undefined> {
  if (record.beneficiaryId === undefined) return undefined;
  return (await ctx.book.beneficiary(record.merchantId, record.beneficiaryId)) ?? null;
}

/**
 * The checks, in order: the seal (a record edited behind the gateway's back is never sent); the
 * beneficiary (archived or gone: cancelled; new details awaiting approval: it waits); maxAmount now
 * (refused); approvalAbove now, for a payout no one approved yet (held).
 */
export function recheckBeforeSend(
  ctx: DomainContext,
  merchant: Merchant,
  current: Disbursement,
  payee: Beneficiary | null | undefined,
  now: Date,
): SendVerdict | undefined {
  if (!sealHolds(ctx.sealKeys, current))
    return refused(current, AuditAction.SEND_REFUSED, 'its record differs from the request it was made with', now);
  if (payee === null || payee?.status === 'ARCHIVED')
    return refused(current, AuditAction.CANCELLED, `its beneficiary ${current.beneficiaryId} was archived`, now);
  if (payee?.status === 'AWAITING_APPROVAL')
    return { kind: 'waiting', why: `its beneficiary ${payee.id}'s new account details await approval` };
  const minor = toMinor(current.amount);
  const max = limitOf(merchant.controls, 'maxAmount', current.currency);
  if (max !== undefined && minor > max)
    return refused(current, AuditAction.LIMIT_REFUSED, `maxAmount: above ${fromMinor(max)} ${current.currency}`, now);
  const threshold = limitOf(merchant.controls, 'approvalAbove', current.currency);
  if (threshold !== undefined && minor > threshold && current.approval === undefined)
    return heldAtSend(merchant, current, `above ${fromMinor(threshold)} ${current.currency}`, now);
  return undefined;
}

function refused(current: Disbursement, action: AuditAction, why: string, now: Date): SendVerdict {
  const at = now.toISOString();
  const message = `Refused before sending: ${why}; never sent`;
  const next = cancelledUnsent(current, message, at, undefined, { sentAt: undefined });
  return { kind: 'refused', next, action, why };
}

/** Held at its time as a new payout above the threshold would be; its requester is whoever asked for it. */
function heldAtSend(merchant: Merchant, current: Disbursement, why: string, now: Date): SendVerdict {
  const at = now.toISOString();
  const ttl = merchant.controls?.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
  const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
  const requestedBy = current.createdBy ?? 'unknown';
  const message = `Awaiting approval by a second person: ${why} (payout controls at its time)`;
  const next = changed(
    current,
    {
      ...current,
      status: 'AWAITING_APPROVAL',
      sending: false,
      sentAt: undefined,
      approval: {
        requestedBy,
        requesterId: current.requesterId ?? current.reservation?.actorId ?? requestedBy,
        expiresAt,
      },
      ...nextDue('APPROVAL_EXPIRY', expiresAt),
      history: [...current.history, { status: 'AWAITING_APPROVAL', message, source: 'CONTROL', at }],
    },
    at,
  );
  return { kind: 'held', next, why };
}

/** The audit entry of a verdict's change: refused with its action, held as HELD. */
export function recheckAudit(verdict: SendVerdict): AuditRule {
  return (before, after) => {
    if (after.version === before.version || verdict.kind === 'waiting') return [];
    const action = verdict.kind === 'held' ? AuditAction.HELD : verdict.action;
    return [auditOf(after, action, after.updatedAt, { detail: after.history.at(-1)?.message ?? verdict.why })];
  };
}

/** The control action a verdict that changed the payout is, for its log line and metric. */
export function verdictEvent(
  merchant: Merchant,
  referenceId: string,
  verdict: Exclude<SendVerdict, { kind: 'waiting' }>,
): ControlEvent {
  const base = { merchantId: merchant.id, referenceId };
  if (verdict.kind === 'held') return { ...base, action: 'held' };
  if (verdict.action === AuditAction.LIMIT_REFUSED) return { ...base, action: 'refused', limit: 'maxAmount' };
  return { ...base, action: 'cancelled' };
}
