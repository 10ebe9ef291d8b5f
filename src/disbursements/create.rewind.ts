import { DomainContext } from './disbursement.context';
import {
  fromProviderError,
  outcomeUnknown,
  referenceConflict,
  storeUnavailable,
  upstreamUnavailable,
} from './disbursement.errors';
import { Disbursement, DisbursementRequest, ProviderRecord } from './disbursement.model';
import { Merchant, ProviderError, StoreUnavailableError } from './disbursement.ports';
import { contentDiffers } from './disbursement.record';
import { CheckPolicy } from './disbursement.checks';
import { recordAnswered, recordUnknown, releaseClaim } from './create.settle';
import { becomeProviders } from './create.recovery';

/**
 * After a rewind, the provider's "not found" means "never received" only once RESEND_AFTER_SECONDS have
 * passed since the rewind: a create the lost history sent just before may still be on its way in.
 */
export function notFoundTrustedAfterRewind(rewoundAt: number, now: number, policy: CheckPolicy): boolean {
  return now >= rewoundAt + policy.resendAfterMs;
}

/**
 * The create protocol's first step: before any claim's send leaves (a client's create, a held payout's
 * approval, a scheduled payout at its time, a resend), check-status. A referenceId the database does not
 * know, or a payout it holds as unsent, is no proof that it was never sent: the database may have gone
 * back in time without anyone noticing (a volume snapshot, a copy started at a new path, a failover to a
 * standby that lacked the last writes), and only the provider's own record cannot be taken back. The
 * provider has it → its record is the answer (or REFERENCE_CONFLICT when it is another payout); within
 * RESEND_AFTER_SECONDS of a rewind that was noticed, a "not found" may be a send still being taken in →
 * UNKNOWN, kept and rechecked, never sent now; it cannot be asked → nothing is sent and the claim is
 * released. Answers undefined when the send may go ahead. Table-driven in
 * test/disbursements/disbursement.rewind.test.ts.
 */
export async function askBeforeSend(
  ctx: DomainContext,
  merchant: Merchant,
  request: DisbursementRequest,
  claim: Disbursement,
): Promise<Disbursement | undefined> {
  const { referenceId } = request;
  let found: ProviderRecord | undefined;
  try {
    found = await ctx.provider.checkStatus(merchant, referenceId, 'create');
  } catch (error) {
    await releaseClaim(ctx, claim, false, 'not sent: the provider could not be asked whether it already has it');
    // The gateway's own store (where the provider budget is kept) is the fault, not the provider.
    if (error instanceof StoreUnavailableError) throw storeUnavailable(referenceId);
    // A pause or a refused key is the provider's own answer, for the client as after a create.
    if (error instanceof ProviderError && (error.kind === 'rate-limited' || error.kind === 'auth'))
      throw fromProviderError(error, referenceId);
    throw upstreamUnavailable(
      referenceId,
      'The payout provider could not be asked whether it already has this payout; nothing was sent. Retry later with the same referenceId.',
    );
  }
  if (found) {
    const differs = contentDiffers(request, found);
    if (differs.length === 0) return recordAnswered(ctx, merchant, referenceId, found, 'STATUS_CHECK', false);
    await becomeProviders(ctx, merchant, claim, found).catch(() => undefined);
    throw referenceConflict(referenceId, differs);
  }
  const rewoundAt = ctx.rewoundAt?.();
  if (rewoundAt === undefined || notFoundTrustedAfterRewind(rewoundAt, ctx.now().getTime(), ctx.policy))
    return undefined;
  await recordUnknown(
    ctx,
    merchant,
    referenceId,
    'the database went back in time and the provider may still be taking an earlier send in',
  );
  throw outcomeUnknown(referenceId);
}
