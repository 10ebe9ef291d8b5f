import { decideAwaiting } from './approval.decision';
import { approvedClaim, notAwaiting } from './approval.records';
import { DomainContext } from './disbursement.context';
import { CreateDisbursement } from './disbursement.create';
import { selfApproval, shuttingDown } from './disbursement.errors';
import { Disbursement } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { withNextCheck } from './disbursement.checks';
import { Actor } from './payout.controls';

/**
 * A second person's approval. The decision is one atomic change of the stored record, so of many
 * racing approvals (and rejections), on any replica, exactly one wins; only the winner sends, through
 * the create protocol's own send. Approving an approved payout returns it once its send has an
 * answer; the requester never may approve, before or after someone else did.
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
  const { outcome, stored } = await decideAwaiting(ctx, merchant, referenceId, (current, now) =>
    current.approval?.requesterId === actor.id
      ? { outcome: 'self' as const }
      : {
          outcome: 'approved' as const,
          next: withNextCheck(approvedClaim(current, actor, now.toISOString()), now, ctx.policy),
        },
  );
  if (outcome === 'self' || stored.approval?.requesterId === actor.id) throw selfApproval(referenceId);
  if (outcome === 'approved') {
    ctx.onControl({ merchantId: merchant.id, referenceId, actor: actor.name, action: 'approved' });
    return creates.sendApproved(merchant, stored);
  }
  // Approved by someone else: the answer is what that approval's send got, as for a repeated create.
  if (stored.approval?.decision === 'APPROVED') return creates.awaitSending(merchant, stored);
  throw notAwaiting(stored);
}
