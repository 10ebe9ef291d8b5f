import { BeneficiaryContext } from './beneficiary.create';
import { AccountDetails, detailsOf } from './beneficiary.model';
import { CreateDisbursement } from './disbursement.create';
import { beneficiaryState, noSuchBeneficiary } from './disbursement.errors';
import { Disbursement, DisbursementRequest } from './disbursement.model';
import { DisbursementStore, Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

export interface BeneficiaryPayment {
  beneficiaryId: string;
  referenceId: string;
  /** The payout request for these account details (the edge's own validation, the payout inputs' rules). */
  build: (details: AccountDetails) => DisbursementRequest;
}

/**
 * Pays a beneficiary through the create protocol, as the direct mutations do (idempotency, controls,
 * limits, approvals, audit, sendAt), with its account details as they are now copied onto the payout.
 * Only an ACTIVE beneficiary of the merchant is paid; one whose details changed less than
 * newPayeeHoldSeconds ago is held for approval whatever the amount. A retry of a payout already made
 * to it is that payout's retry with the details it was made with, whatever the beneficiary became.
 */
export async function payBeneficiary(
  ctx: BeneficiaryContext & { store: DisbursementStore },
  creates: CreateDisbursement,
  merchant: Merchant,
  payment: BeneficiaryPayment,
  requestId: string | undefined,
  actor: Actor,
): Promise<Disbursement> {
  const { beneficiaryId, referenceId, build } = payment;
  const made = await ctx.store.get(merchant.id, referenceId);
  if (made?.request && made.beneficiaryId === beneficiaryId)
    return creates.create(merchant, build(detailsOf(made.request)), requestId, actor, { beneficiaryId });
  const beneficiary = await ctx.book.beneficiary(merchant.id, beneficiaryId);
  if (!beneficiary) throw noSuchBeneficiary(beneficiaryId, 'input.beneficiaryId');
  if (beneficiary.status === 'AWAITING_APPROVAL')
    throw beneficiaryState(beneficiaryId, beneficiary.status, 'its account details await approval');
  if (beneficiary.status === 'ARCHIVED') throw beneficiaryState(beneficiaryId, beneficiary.status, 'it is archived');
  const newPayee = ctx.now().getTime() < Date.parse(beneficiary.payableFrom);
  const holdReason = newPayee
    ? `new payee: its account details changed at ${beneficiary.changedAt}, within newPayeeHoldSeconds`
    : undefined;
  return creates.create(merchant, build(beneficiary.details), requestId, actor, { beneficiaryId, holdReason });
}
