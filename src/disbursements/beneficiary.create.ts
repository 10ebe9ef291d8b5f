import { randomUUID } from 'node:crypto';
import { AuditAction } from './audit.entry';
import { Beneficiary, BeneficiaryDraft, beneficiaryAudit, describeAccount } from './beneficiary.model';
import { duplicateBeneficiary } from './disbursement.errors';
import { BeneficiaryStore, Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

/** What the beneficiary use cases work with. */
export interface BeneficiaryContext {
  book: BeneficiaryStore;
  now: () => Date;
}

/** When payouts to details set at `at` stop being held as to a new payee. */
export function payableFrom(merchant: Merchant, at: Date): string {
  return new Date(at.getTime() + (merchant.controls?.newPayeeHoldSeconds ?? 0) * 1000).toISOString();
}

/** New details await approval under beneficiaryApproval; else they are payable at once. */
export function statusForNewDetails(merchant: Merchant): Beneficiary['status'] {
  return merchant.controls?.beneficiaryApproval ? 'AWAITING_APPROVAL' : 'ACTIVE';
}

/** Adds a beneficiary to the merchant's book, audited BENEFICIARY_CREATED; a duplicate of an active one is refused naming it. */
export async function createBeneficiary(
  ctx: BeneficiaryContext,
  merchant: Merchant,
  draft: BeneficiaryDraft,
  actor: Actor,
): Promise<Beneficiary> {
  const now = ctx.now();
  const at = now.toISOString();
  const beneficiary: Beneficiary = {
    merchantId: merchant.id,
    id: `ben_${randomUUID()}`,
    name: draft.name,
    details: draft.details,
    status: statusForNewDetails(merchant),
    createdBy: actor.name,
    createdAt: at,
    requesterId: actor.id,
    changedAt: at,
    payableFrom: payableFrom(merchant, now),
    updatedAt: at,
  };
  const awaiting = beneficiary.status === 'AWAITING_APPROVAL' ? '; awaiting approval' : '';
  const audit = [
    beneficiaryAudit(
      AuditAction.BENEFICIARY_CREATED,
      beneficiary,
      actor.name,
      at,
      `${describeAccount(draft.details)}${awaiting}`,
    ),
  ];
  const { duplicate } = await ctx.book.insertBeneficiary({ beneficiary, audit });
  if (duplicate) throw duplicateBeneficiary(duplicate.id);
  return beneficiary;
}
