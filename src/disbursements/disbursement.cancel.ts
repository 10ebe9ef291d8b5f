import { decideAwaiting } from './approval.decision';
import { endedBeforeApproval, notAwaiting } from './approval.records';
import { DomainContext } from './disbursement.context';
import { notYourPayout } from './disbursement.errors';
import { Disbursement } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

/**
 * The requester, or an approver (`mayDecide`), withdraws a payout still awaiting approval: CANCELLED,
 * never sent. Atomic against a racing approval: one of them wins.
 */
export async function cancelDisbursement(
  ctx: DomainContext,
  merchant: Merchant,
  referenceId: string,
  actor: Actor,
  mayDecide: boolean,
): Promise<Disbursement> {
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
