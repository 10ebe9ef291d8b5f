import { AuditAction } from './audit.entry';
import { BeneficiaryContext } from './beneficiary.create';
import { Beneficiary, beneficiaryAudit, describeAccount } from './beneficiary.model';
import { beneficiaryState, noSuchBeneficiary, selfApprovedBeneficiary } from './disbursement.errors';
import { Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

/** Approves a beneficiary's new account details, by someone other than who set them; audited BENEFICIARY_APPROVED. */
export async function approveBeneficiary(
  ctx: BeneficiaryContext,
  merchant: Merchant,
  id: string,
  actor: Actor,
): Promise<Beneficiary> {
  const { stored } = await ctx.book.updateBeneficiary(merchant.id, id, (current) => {
    if (current.status !== 'AWAITING_APPROVAL')
      throw beneficiaryState(id, current.status, 'it does not await approval');
    if (current.requesterId === actor.id) throw selfApprovedBeneficiary(id);
    const at = ctx.now().toISOString();
    const next: Beneficiary = { ...current, status: 'ACTIVE', approvedBy: actor.name, updatedAt: at };
    const what = `${describeAccount(current.details)} approved`;
    return {
      beneficiary: next,
      audit: [beneficiaryAudit(AuditAction.BENEFICIARY_APPROVED, next, actor.name, at, what)],
    };
  });
  if (!stored) throw noSuchBeneficiary(id);
  return stored;
}
