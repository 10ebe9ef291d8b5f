import { decideAwaiting } from './approval.decision';
import { endedBeforeApproval, notAwaiting } from './approval.records';
import { DomainContext } from './disbursement.context';
import { noSuchPayout, notYourPayout } from './disbursement.errors';
import { Disbursement } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';
import { cancelledBeforeTime } from './schedule.records';
import { whenVisible } from './audit.rules';
import { AuditAction } from './audit.entry';

/**
 * Withdraws a payout before anything was sent: CANCELLED, never sent. A SCHEDULED one, by anyone of
 * the merchant, until its time's send claims it; one awaiting approval, by its requester or an
 * approver (`mayDecide`). Each is one atomic change, so against a racing send or approval one wins.
 */
export async function cancelDisbursement(
  ctx: DomainContext,
  merchant: Merchant,
  referenceId: string,
  actor: Actor,
  mayDecide: boolean,
): Promise<Disbursement> {
  const scheduled = await ctx.writer.change(
    merchant.id,
    referenceId,
    (current) =>
      current.status === 'SCHEDULED' && !current.sending
        ? cancelledBeforeTime(current, actor, ctx.now().toISOString())
        : undefined,
    whenVisible(AuditAction.CANCELLED),
  );
  if (!scheduled.stored) throw noSuchPayout(referenceId);
  if (scheduled.stored.status === 'CANCELLED' && scheduled.changed) {
    ctx.onControl({ merchantId: merchant.id, referenceId, actor: actor.name, action: 'cancelled' });
    return scheduled.stored;
  }
  const { outcome, stored } = await decideAwaiting(
    ctx,
    merchant,
    referenceId,
    (current, now) => ({
      outcome: 'cancelled' as const,
      next: endedBeforeApproval(current, { decision: 'CANCELLED', actor }, now.toISOString()),
    }),
    (current) =>
      current.approval && !mayDecide && current.approval.requesterId !== actor.id ? ('forbidden' as const) : undefined,
  );
  if (outcome === 'forbidden') throw notYourPayout(referenceId);
  if (outcome !== 'cancelled') throw notAwaiting(stored);
  ctx.onControl({ merchantId: merchant.id, referenceId, actor: actor.name, action: 'cancelled' });
  return stored;
}
