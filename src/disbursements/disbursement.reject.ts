import { decideAwaiting } from './approval.decision';
import { endedBeforeApproval, notAwaiting } from './approval.records';
import { DomainContext } from './disbursement.context';
import { Disbursement } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

/** An approver's refusal: CANCELLED, never sent, its amount back in the day's allowance. Atomic against a racing approval. */
export async function rejectDisbursement(
  ctx: DomainContext,
  merchant: Merchant,
  referenceId: string,
  actor: Actor,
  reason?: string,
): Promise<Disbursement> {
  const { outcome, stored } = await decideAwaiting(ctx, merchant, referenceId, (current, now) => ({
    outcome: 'rejected' as const,
    next: endedBeforeApproval(current, { decision: 'REJECTED', actor, reason }, now.toISOString()),
  }));
  if (outcome !== 'rejected') throw notAwaiting(stored);
  ctx.onControl({ merchantId: merchant.id, referenceId, actor: actor.name, action: 'rejected' });
  return stored;
}
