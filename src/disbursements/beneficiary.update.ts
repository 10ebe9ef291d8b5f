import { AuditAction } from './audit.entry';
import { BeneficiaryContext, payableFrom, statusForNewDetails } from './beneficiary.create';
import { Beneficiary, BeneficiaryDraft, beneficiaryAudit, describeAccount, sameDetails } from './beneficiary.model';
import { beneficiaryState, duplicateBeneficiary, noSuchBeneficiary } from './disbursement.errors';
import { Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

/**
 * Changes a beneficiary's name and account details, audited BENEFICIARY_CHANGED with the old and new
 * (masked). A change of the account details is a new payee: under beneficiaryApproval it awaits
 * approval again, and payouts to it are held until newPayeeHoldSeconds pass. A new name alone awaits
 * approval under beneficiaryApproval too (a payee must not take a trusted one's name unseen), but holds
 * no payout. Payouts already made keep the details they were made with.
 */
export async function updateBeneficiary(
  ctx: BeneficiaryContext,
  merchant: Merchant,
  id: string,
  draft: BeneficiaryDraft,
  actor: Actor,
): Promise<Beneficiary> {
  const { stored, duplicate } = await ctx.book.updateBeneficiary(merchant.id, id, (current) => {
    if (current.status === 'ARCHIVED')
      throw beneficiaryState(id, current.status, 'an archived beneficiary stays as it was');
    const detailsChanged = !sameDetails(current.details, draft.details);
    if (!detailsChanged && current.name === draft.name) return undefined;
    const now = ctx.now();
    const at = now.toISOString();
    const next: Beneficiary = detailsChanged
      ? {
          ...current,
          name: draft.name,
          details: draft.details,
          status: statusForNewDetails(merchant),
          requesterId: actor.id,
          approvedBy: undefined,
          changedAt: at,
          payableFrom: payableFrom(merchant, now),
          updatedAt: at,
        }
      : statusForNewDetails(merchant) === 'AWAITING_APPROVAL'
        ? {
            ...current,
            name: draft.name,
            status: 'AWAITING_APPROVAL',
            requesterId: actor.id,
            approvedBy: undefined,
            updatedAt: at,
          }
        : { ...current, name: draft.name, updatedAt: at };
    const parts = [
      ...(current.name !== draft.name ? [`name "${current.name}" → "${draft.name}"`] : []),
      ...(detailsChanged ? [`account ${describeAccount(current.details)} → ${describeAccount(draft.details)}`] : []),
      ...(next.status === 'AWAITING_APPROVAL' ? ['awaiting approval'] : []),
    ];
    return {
      beneficiary: next,
      audit: [beneficiaryAudit(AuditAction.BENEFICIARY_CHANGED, next, actor.name, at, parts.join('; '))],
    };
  });
  if (duplicate) throw duplicateBeneficiary(duplicate.id);
  if (!stored) throw noSuchBeneficiary(id);
  return stored;
}
