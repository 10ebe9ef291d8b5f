import { DomainContext } from './disbursement.context';
import { Disbursement, DisbursementRequest, ProviderRecord } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { recoverFailedSend } from './create.recovery';
import { recordAnswered } from './create.settle';
import { askBeforeSend } from './create.rewind';

/**
 * The create protocol's send: the one provider call for a stored claim, after a check-status that
 * finds whether the provider already has it (create.rewind.ts). From here on the outcome is this stage's: the
 * provider's reply is recorded, or a failed call goes to the recovery.
 */
export async function sendClaim(
  ctx: DomainContext,
  merchant: Merchant,
  request: DisbursementRequest,
  claim: Disbursement,
): Promise<Disbursement> {
  const known = await askBeforeSend(ctx, merchant, request, claim);
  if (known) return known;
  let created: ProviderRecord;
  try {
    created = await ctx.provider.create(merchant, request);
  } catch (error) {
    return recoverFailedSend(ctx, merchant, request, claim, error);
  }
  return recordAnswered(ctx, merchant, request.referenceId, created, 'CREATE', true);
}
