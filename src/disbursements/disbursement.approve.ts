import { decideAwaiting } from './approval.decision';
import { approvedClaim, notAwaiting, requesterIdsOf } from './approval.records';
import { DomainContext } from './disbursement.context';
import { CreateDisbursement } from './disbursement.create';
import {
  beneficiaryState,
  noSuchPayout,
  refusedBeforeSend,
  sealedElsewhere,
  selfApproval,
  shuttingDown,
} from './disbursement.errors';
import { Disbursement } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { withDueNext } from './disbursement.checks';
import { Actor } from './payout.controls';
import { expiredUnsent, isTooLate, scheduledFor, sendsLater } from './schedule.records';
import { decided } from './audit.rules';
import { recheckAudit, recheckBeforeSend, recheckReads, SendVerdict, verdictEvent } from './send.recheck';

/**
 * A second person's approval (of a scheduled payout: SCHEDULED until its time, sent at once within
 * its late limit, else EXPIRED). The decision is one atomic change of the stored record, so of many
 * racing approvals (and rejections), on any replica, exactly one wins; only the winner sends, through
 * the create protocol's own send. Approving an approved payout returns it once its send has an
 * answer; the requester never may approve, before or after someone else did. The payout is checked
 * again first (send.recheck.ts): one refused ends CANCELLED, never sent, and the approver is told why;
 * one whose beneficiary's new details await approval stays held; one sealed under a key this gateway
 * does not seal with is left as it is (SERVICE_UNAVAILABLE: another replica, or an operator, decides).
 */
export async function approveDisbursement(
  ctx: DomainContext,
  creates: CreateDisbursement,
  merchant: Merchant,
  referenceId: string,
  actor: Actor,
): Promise<Disbursement> {
  // An approval stored now could not be sent by this process: refuse before deciding anything.
  if (!creates.accepting) throw shuttingDown(referenceId);
  // Only its beneficiary and its trail are read for it, which no write of the record changes: the
  // record this process knows will do to find them.
  const seen = await ctx.store.known(merchant.id, referenceId);
  if (!seen) throw noSuchPayout(referenceId);
  const reads = await recheckReads(ctx, seen);
  const payee = reads.payee;
  let verdict: SendVerdict | undefined;
  const { outcome, stored } = await decideAwaiting(
    ctx,
    merchant,
    referenceId,
    (current, now) => {
      verdict = undefined;
      if (requesterIdsOf(current).includes(actor.id)) return { outcome: 'self' as const };
      verdict = recheckBeforeSend(ctx, merchant, current, reads, now, 'approve');
      if (verdict?.kind === 'refused') return { outcome: 'refused' as const, next: verdict.next };
      if (verdict?.kind === 'elsewhere') return { outcome: 'elsewhere' as const };
      if (verdict) return { outcome: 'waiting' as const };
      return approved(ctx, current, actor, now);
    },
    undefined,
    (before, after) => (verdict ? recheckAudit(verdict) : decided)(before, after),
  );
  if (outcome === 'self' || requesterIdsOf(stored).includes(actor.id)) throw selfApproval(referenceId);
  if (outcome === 'refused' && verdict?.kind === 'refused') {
    ctx.onControl(verdictEvent(merchant, referenceId, verdict));
    throw refusedBeforeSend(referenceId, verdict.why);
  }
  if (outcome === 'elsewhere' && verdict?.kind === 'elsewhere') {
    ctx.onControl({ merchantId: merchant.id, referenceId, action: 'sealed_elsewhere' });
    throw sealedElsewhere(referenceId, verdict.keyId);
  }
  if (outcome === 'waiting' && payee)
    throw beneficiaryState(payee.id, payee.status, 'its account details await approval');
  if (outcome === 'approved' || outcome === 'scheduled' || outcome === 'late') {
    ctx.onControl({ merchantId: merchant.id, referenceId, actor: actor.name, action: 'approved' });
    if (outcome === 'late') ctx.onControl({ merchantId: merchant.id, referenceId, action: 'expired' });
    return outcome === 'approved' ? creates.sendClaimed(merchant, stored) : stored;
  }
  // Approved by someone else: the answer is what that approval's send got, as for a repeated create.
  if (stored.approval?.decision === 'APPROVED') return creates.awaitSending(merchant, stored);
  throw notAwaiting(stored);
}

/**
 * The approval's outcome: sent at once (`approved`); SCHEDULED when its sendAt is still ahead; EXPIRED
 * (`late`), never sent, when its sendAt passed by more than SCHEDULE_LATE_LIMIT_SECONDS.
 */
function approved(ctx: DomainContext, current: Disbursement, actor: Actor, now: Date) {
  const claim = approvedClaim(current, actor, now.toISOString(), ctx.sealKeys[0]);
  // Its time as its sealed request gives it: a row without its sendAt is not sent before then.
  const sendAt = current.request?.sendAt ?? current.sendAt;
  if (sendsLater(sendAt, now)) return { outcome: 'scheduled' as const, next: scheduledFor(claim, sendAt, now) };
  if (isTooLate(current, now, ctx.policy))
    return { outcome: 'late' as const, next: expiredUnsent(claim, now.toISOString()) };
  return { outcome: 'approved' as const, next: withDueNext(claim, now, ctx.policy) };
}
