import { AuditAction } from './audit.entry';
import { BeneficiaryContext } from './beneficiary.create';
import { Beneficiary, beneficiaryAudit, describeAccount } from './beneficiary.model';
import { noSuchBeneficiary } from './disbursement.errors';
import { Merchant } from './disbursement.ports';
import { Actor } from './payout.controls';

/** Archives a beneficiary: never payable again, its payouts stay; audited BENEFICIARY_ARCHIVED. Archiving again changes nothing. */
export async function archiveBeneficiary(
  ctx: BeneficiaryContext,
  merchant: Merchant,
  id: string,
  actor: Actor,
): Promise<Beneficiary> {
  const { stored } = await ctx.book.updateBeneficiary(merchant.id, id, (current) => {
    if (current.status === 'ARCHIVED') return undefined;
    const at = ctx.now().toISOString();
    const next: Beneficiary = { ...current, status: 'ARCHIVED', updatedAt: at };
    const what = `${describeAccount(current.details)} archived`;
    return {
      beneficiary: next,
      audit: [beneficiaryAudit(AuditAction.BENEFICIARY_ARCHIVED, next, actor.name, at, what)],
    };
  });
  if (!stored) throw noSuchBeneficiary(id);
  return stored;
}
