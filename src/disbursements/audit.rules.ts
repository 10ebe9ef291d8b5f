import { AuditAction, AuditDraft, auditEvent, auditOf } from './audit.entry';
import { CHANNEL_RULES } from './channel.rules';
import { Disbursement, isFinal } from './disbursement.model';
import { AuditRule } from './disbursement.ports';
import { ControlKey } from './payout.controls';
import { burstSummary } from './audit.repeats';

/**
 * Which audit entries each kind of write records (audit.entry.ts). A rule sees the record before
 * and after the write and is applied in the same atomic step, so an entry exists exactly when the
 * change it records was stored.
 */

const lastEvent = (record: Disbursement) => record.history.at(-1);

/** A new payout: who asked, and (when the controls held it, or it waits for its time) that it awaits approval or is scheduled. */
export function requested(record: Disbursement, actor: string): AuditDraft[] {
  const asked = auditOf(record, AuditAction.CREATE_REQUESTED, record.updatedAt, {
    actor,
    detail: `${CHANNEL_RULES[record.channel].label} payout to ${record.accountNumber}`,
  });
  const detail = lastEvent(record)?.message;
  if (record.status === 'SCHEDULED')
    return [asked, auditOf(record, AuditAction.SCHEDULED, record.updatedAt, { detail })];
  if (record.status !== 'AWAITING_APPROVAL') return [asked];
  return [asked, auditOf(record, AuditAction.HELD, record.updatedAt, { detail })];
}

/** A payout control refused it before anything was stored. */
export function limitRefused(
  request: { referenceId: string; amount: string; currency: string },
  actor: string,
  limit: ControlKey,
  at: string,
  detail: string,
): AuditDraft {
  return auditEvent(AuditAction.LIMIT_REFUSED, at, {
    actor,
    referenceId: request.referenceId,
    amount: request.amount,
    currency: request.currency,
    detail: `${limit}: ${detail}`,
  });
}

/** One entry when a client can see the change (its version moved), told by the change's own history event. */
export function whenVisible(action: AuditAction, detail?: string): AuditRule {
  return (before, after) => {
    if (after.version === before.version) return [];
    const event = lastEvent(after);
    return [auditOf(after, action, after.updatedAt, { actor: event?.actor ?? null, detail: detail ?? event?.message })];
  };
}

/** A second person's decision, or the approval's expiry: the decision as the action, its maker as the actor. */
export const decided: AuditRule = (before, after) => {
  const decision = after.approval?.decision;
  if (!decision || decision === before.approval?.decision) return [];
  const at = after.approval?.decidedAt ?? after.updatedAt;
  const detail = after.approval?.reason ?? lastEvent(after)?.message;
  const entry = auditOf(after, AuditAction[decision], at, { actor: after.approval?.decidedBy ?? null, detail });
  // Approved after its sendAt's late limit: expired at once, never sent.
  if (after.status !== 'EXPIRED') return [entry];
  return [entry, auditOf(after, AuditAction.EXPIRED, after.updatedAt, { detail: lastEvent(after)?.message })];
};

/**
 * The create left the gateway (at the time its claim says) whatever came of it. Its status is UNKNOWN
 * until an answer comes, unless a signed callback settled the payout while the send was under way:
 * an entry never records an older status than the one before it.
 */
function sent(before: Disbursement, after: Disbursement, detail?: string): AuditDraft {
  const status = isFinal(before.status) ? before.status : 'UNKNOWN';
  return auditOf(after, AuditAction.SENT, before.sentAt ?? after.updatedAt, { status, detail });
}

/** The provider's answer to the create: sent, then answered. */
export const answeredCreate: AuditRule = (before, after) => [
  sent(before, after),
  auditOf(after, AuditAction.PROVIDER_ANSWERED, after.updatedAt, {
    detail: lastEvent(after)?.message ?? after.providerStatus,
  }),
];

/** The create was sent and its answer did not come (or could not be read): the outcome is unknown. */
export function unanswered(reason: string): AuditRule {
  return (before, after) => [sent(before, after, `no answer (${reason}): outcome unknown`)];
}

/**
 * The provider's record, found by check-status after a send whose answer was lost or refused (`sent`),
 * or for a payout whose earlier outcome was unknown.
 */
export function foundByCheck(sentJustNow: boolean, detail?: string): AuditRule {
  return (before, after) => [
    ...(sentJustNow ? [sent(before, after)] : []),
    auditOf(after, AuditAction.STATUS_CHECKED, after.updatedAt, { detail: detail ?? 'the provider has this payout' }),
  ];
}

/**
 * The provider took nothing: refused after the create left (`sentJustNow`), or nothing left at all
 * (the provider unreachable, the budget spent). `status` null: the payout is gone.
 */
export function tookNothing(sentJustNow: boolean, why: string, at: string) {
  return (before: Disbursement, after?: Disbursement): AuditDraft[] => [
    ...(sentJustNow ? [sent(before, after ?? before)] : []),
    auditOf(after ?? before, AuditAction.PROVIDER_ANSWERED, at, { status: after?.status ?? null, detail: why }),
  ];
}

/**
 * Retention removed a final payout's record (its repeats summarised first): `status` null, so the
 * trail says the row is gone on purpose, and a row deleted any other way shows in `audit:verify`.
 */
export function removedByRetention(at: string, retentionSeconds: number) {
  return (current: Disbursement): AuditDraft[] => [
    ...burstSummary(current, current.auditTail),
    auditOf(current, AuditAction.RECORD_REMOVED, at, {
      status: null,
      detail: `${current.status}, not written for RECORD_RETENTION_SECONDS (${retentionSeconds} s): its record removed`,
    }),
  ];
}
