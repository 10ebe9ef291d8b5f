import { endedBeforeApproval, isExpired } from './approval.records';
import { DomainContext } from './disbursement.context';
import { noSuchPayout } from './disbursement.errors';
import { Disbursement } from './disbursement.model';
import { AuditRule, Merchant } from './disbursement.ports';
import { decided as decisionAudit } from './audit.rules';

export interface Decision<O extends string> {
  outcome: O;
  /** The record the decision makes; none when it leaves the record as it is. */
  next?: Disbursement;
}

export interface Decided<O extends string> {
  /** `expired`: the payout was past its approval time and has just expired instead; `undecidable`: it no longer awaits approval. */
  outcome: O | 'expired' | 'undecidable';
  stored: Disbursement;
}

/**
 * One decision on a payout awaiting approval (approve, reject, cancel), as one atomic change of the
 * stored record, so of racing decisions on any replica exactly one wins. `refuse` may turn the
 * caller away whatever the payout's state; a payout no longer awaiting approval is left as it is;
 * one past its approval time expires instead of being decided (and that is reported once).
 */
export async function decideAwaiting<O extends string>(
  ctx: DomainContext,
  merchant: Merchant,
  referenceId: string,
  decide: (current: Disbursement, now: Date) => Decision<O>,
  refuse: (current: Disbursement) => O | undefined = () => undefined,
  audit: AuditRule = decisionAudit,
): Promise<Decided<O>> {
  let outcome: Decided<O>['outcome'] = 'undecidable';
  const { stored } = await ctx.writer.change(
    merchant.id,
    referenceId,
    (current) => {
      const refused = refuse(current);
      outcome = refused ?? 'undecidable';
      if (refused || current.status !== 'AWAITING_APPROVAL') return undefined;
      const now = ctx.now();
      if (isExpired(current, now)) {
        outcome = 'expired';
        return endedBeforeApproval(current, { decision: 'EXPIRED' }, now.toISOString());
      }
      const decision = decide(current, now);
      outcome = decision.outcome;
      return decision.next;
    },
    audit,
  );
  if (!stored) throw noSuchPayout(referenceId);
  const decided = outcome as Decided<O>['outcome'];
  if (decided === 'expired') ctx.onControl({ merchantId: merchant.id, referenceId, action: 'expired' });
  return { outcome: decided, stored };
}
