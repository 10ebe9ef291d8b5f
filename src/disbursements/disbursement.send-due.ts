import { DomainContext } from './disbursement.context';
import { redue } from './disbursement.checks';
import { CreateDisbursement } from './disbursement.create';
import { Disbursement, nextDue } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { dueClaim, expiredUnsent, isDue, isTooLate, sendPutOff } from './schedule.records';
import { whenVisible } from './audit.rules';
import { AuditAction } from './audit.entry';
import { payeeOf, recheckAudit, recheckBeforeSend, SendVerdict, verdictEvent } from './send.recheck';

/**
 * The rechecker's step for a SCHEDULED payout (due at its sendAt). Becoming a claim is one
 * conditional write of the stored record, so of all replicas (and restarts) exactly one wins and
 * sends, through the create protocol's own send; its outcome is then the create's (answered, UNKNOWN,
 * or put off when the provider took nothing). Past SCHEDULE_LATE_LIMIT_SECONDS it is EXPIRED instead,
 * never sent. Before the claim the payout is checked again (send.recheck.ts): a record that differs
 * from its keyed request, an archived beneficiary or maxAmount as it is now end it CANCELLED; a
 * beneficiary awaiting approval puts it off; approvalAbove as it is now holds it. Leased early, it is
 * due at its time again.
 */
export async function sendDueStep(
  ctx: DomainContext,
  creates: CreateDisbursement,
  merchant: Merchant,
  record: Disbursement,
): Promise<Disbursement | undefined> {
  let claimed = false;
  let verdict: SendVerdict | undefined;
  const payee = await payeeOf(ctx, record);
  const { stored } = await ctx.writer.change(
    merchant.id,
    record.referenceId,
    (current) => {
      claimed = false;
      verdict = undefined;
      const now = ctx.now();
      // Due for a kind its status no longer calls for: what is due follows from its status.
      if (current.status !== 'SCHEDULED' || current.sending) return redue(current, now, ctx.policy);
      if (!isDue(current, now)) return { ...current, ...nextDue('SEND', current.sendAt) };
      if (isTooLate(current, now, ctx.policy)) return expiredUnsent(current, now.toISOString());
      // No process may start a send once shutdown began: it stays due for the next one.
      if (!creates.accepting) return undefined;
      verdict = recheckBeforeSend(ctx, merchant, current, payee, now);
      if (verdict?.kind === 'waiting') return sendPutOff(current, verdict.why, now, ctx.policy);
      if (verdict) return verdict.next;
      claimed = true;
      return dueClaim(current, now, ctx.policy);
    },
    (before, after) => (verdict ? recheckAudit(verdict) : whenVisible(AuditAction.EXPIRED))(before, after),
  );
  if (!stored) return undefined;
  if (stored.status === 'EXPIRED') {
    ctx.onControl({ merchantId: merchant.id, referenceId: record.referenceId, action: 'expired' });
    return stored;
  }
  if (verdict && verdict.kind !== 'waiting') ctx.onControl(verdictEvent(merchant, record.referenceId, verdict));
  if (!claimed) return stored;
  // The send's failures are recorded on the payout (UNKNOWN, or SCHEDULED again); there is no caller to tell.
  return creates.sendClaimed(merchant, stored).catch(() => ctx.store.get(merchant.id, record.referenceId));
}
