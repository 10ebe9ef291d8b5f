import { endedBeforeApproval, isExpired } from './approval.records';
import { DomainContext } from './disbursement.context';
import { redue } from './disbursement.checks';
import { Disbursement, nextDue } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { decided } from './audit.rules';

/**
 * The rechecker's step for a payout awaiting approval (due when its approval expires): CANCELLED
 * once expired, never sent. Before that (the rechecker leased it early) it is due at expiry again.
 */
export async function expireStep(
  ctx: DomainContext,
  merchant: Merchant,
  record: Disbursement,
): Promise<Disbursement | undefined> {
  let expired = false;
  const { stored } = await ctx.writer.change(
    merchant.id,
    record.referenceId,
    (current) => {
      expired = false;
      const now = ctx.now();
      // Due for a kind its status no longer calls for: what is due follows from its status.
      if (current.status !== 'AWAITING_APPROVAL') return redue(current, now, ctx.policy);
      if (!isExpired(current, now)) return { ...current, ...nextDue('APPROVAL_EXPIRY', current.approval?.expiresAt) };
      expired = true;
      return endedBeforeApproval(current, { decision: 'EXPIRED' }, now.toISOString());
    },
    decided,
  );
  if (expired) ctx.onControl({ merchantId: merchant.id, referenceId: record.referenceId, action: 'expired' });
  return stored;
}
