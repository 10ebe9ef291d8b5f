import { DomainContext } from './disbursement.context';
import { outcomeUnknown, referenceConflict, upstreamUnavailable } from './disbursement.errors';
import { Disbursement, DisbursementRequest, ProviderRecord } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { contentDiffers } from './disbursement.record';
import { CheckPolicy } from './disbursement.checks';
import { recordAnswered, recordUnknown, releaseClaim } from './create.settle';
import { becomeProviders } from './create.recovery';

/**
 * Whether a send must first ask the provider: the database went back in time (a restore, a failover,
 * an older copy of the file) less than RESTORE_CHECK_SECONDS ago, so a referenceId it does not know
 * is no proof that the payout was never sent. Table-driven in test/disbursements/disbursement.rewind.test.ts.
 */
export function mustAskFirst(rewoundAt: number | undefined, now: number, policy: CheckPolicy): boolean {
  return rewoundAt !== undefined && now < rewoundAt + policy.restoreCheckMs;
}

/**
 * After a rewind, the provider's "not found" means "never received" only once RESEND_AFTER_SECONDS have
 * passed since the rewind: a create the lost history sent just before may still be on its way in.
 */
export function notFoundTrustedAfterRewind(rewoundAt: number, now: number, policy: CheckPolicy): boolean {
  return now >= rewoundAt + policy.resendAfterMs;
}

/**
 * The create protocol's first step after the database went back in time: before a claim's send leaves,
 * check-status. The provider has it → its record is the answer (or REFERENCE_CONFLICT when it is another
 * payout); it may still be taking it in → UNKNOWN, kept and rechecked, never sent now; it cannot be
 * asked → nothing is sent and the claim is released. Answers undefined when the send may go ahead.
 */
export async function askBeforeSend(
  ctx: DomainContext,
  merchant: Merchant,
  request: DisbursementRequest,
  claim: Disbursement,
): Promise<Disbursement | undefined> {
  const rewoundAt = ctx.rewoundAt?.();
  const now = ctx.now().getTime();
  if (rewoundAt === undefined || !mustAskFirst(rewoundAt, now, ctx.policy)) return undefined;
  const { referenceId } = request;
  let found: ProviderRecord | undefined;
  try {
    found = await ctx.provider.checkStatus(merchant, referenceId, 'create');
  } catch {
    await releaseClaim(ctx, claim, false, 'not sent: the provider could not be asked after the database went back');
    throw upstreamUnavailable(
      referenceId,
      'The database was restored, and the payout provider could not be asked whether it already has this payout; nothing was sent. Retry later with the same referenceId.',
    );
  }
  if (found) {
    const differs = contentDiffers(request, found);
    if (differs.length === 0) return recordAnswered(ctx, merchant, referenceId, found, 'STATUS_CHECK', false);
    await becomeProviders(ctx, merchant, claim, found).catch(() => undefined);
    throw referenceConflict(referenceId, differs);
  }
  if (notFoundTrustedAfterRewind(rewoundAt, now, ctx.policy)) return undefined;
  await recordUnknown(
    ctx,
    merchant,
    referenceId,
    'the database went back in time and the provider may still be taking an earlier send in',
  );
  throw outcomeUnknown(referenceId);
}
