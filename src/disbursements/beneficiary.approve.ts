import { AuditAction } from './audit.entry';
import { BeneficiaryContext } from './beneficiary.create';
import { Beneficiary, beneficiaryAudit, describeAccount, detailsFingerprint } from './beneficiary.model';
import {
  beneficiaryState,
  noSuchBeneficiary,
  selfApprovedBeneficiary,
  staleBeneficiaryApproval,
} from './disbursement.errors';
import { Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

/**
 * Approves a beneficiary's new name or account details, by someone other than who set them; audited
 * BENEFICIARY_APPROVED with the details approved. `expectedDetails` (the `detailsFingerprint` the
 * approver saw) is always given, so an approval approves those details only: changed since, it is
 * STALE_APPROVAL and nothing changes.
 */
export async function approveBeneficiary(
  ctx: BeneficiaryContext,
  merchant: Merchant,
  id: string,
  actor: Actor,
  expectedDetails: string,
): Promise<Beneficiary> {
  const { stored } = await ctx.book.updateBeneficiary(merchant.id, id, (current) => {
    if (current.status !== 'AWAITING_APPROVAL')
      throw beneficiaryState(id, current.status, 'it does not await approval');
    if (current.requesterId === actor.id) throw selfApprovedBeneficiary(id);
    const seen = detailsFingerprint(current);
    if (expectedDetails !== seen) throw staleBeneficiaryApproval(id);
    const at = ctx.now().toISOString();
    const next: Beneficiary = { ...current, status: 'ACTIVE', approvedBy: actor.name, updatedAt: at };
    const what = `"${current.name}" ${describeAccount(current.details)} approved (details ${seen})`;
    return {
      beneficiary: next,
      audit: [beneficiaryAudit(AuditAction.BENEFICIARY_APPROVED, next, actor.name, at, what)],
    };
  });
  if (!stored) throw noSuchBeneficiary(id);
  return stored;
}
