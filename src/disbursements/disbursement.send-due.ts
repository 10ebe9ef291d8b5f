import { DomainContext } from './disbursement.context';
import { redue } from './disbursement.checks';
import { CreateDisbursement } from './disbursement.create';
import { Disbursement, nextDue } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { dueClaim, expiredUnsent, isTooLate, sendPutOff } from './schedule.records';
import { whenVisible } from './audit.rules';
import { AuditAction } from './audit.entry';
import { notSentYet, recheckAudit, recheckBeforeSend, recheckReads, SendVerdict, verdictEvent } from './send.recheck';

/**
 * Whether a payout waits for the gateway to send it: SCHEDULED for its time, or confirmed never received
 * after the gateway sent it on its own decision (disbursement.record.ts markNeverReceived).
 */
function awaitsItsSend(record: Disbursement): boolean {
  if (record.sending) return false;
  return record.status === 'SCHEDULED' || (record.status === 'UNKNOWN' && record.due?.kind === 'SEND');
}

/** The time it may go (its request's sendAt), or undefined: at once. */
const timeOf = (record: Disbursement) => record.request?.sendAt ?? record.sendAt;

/**
 * The due loop's step for a payout the gateway sends on its own (`SEND`): a SCHEDULED payout at its
 * sendAt, or one it sent on its own decision that the provider confirmed it never received. Becoming a
 * claim is one conditional write of the stored record, so of all replicas (and restarts) exactly one
 * wins and sends, through the create protocol's own send; its outcome is then the create's
 * (answered, UNKNOWN, or put off when the provider took nothing). Past SCHEDULE_LATE_LIMIT_SECONDS
 * after its time it is EXPIRED instead, never sent. Before the claim it is checked again
 * (send.recheck.ts): its seal and the decision it carries, its trail, its beneficiary and the
 * controls as they are now; refused, it ends CANCELLED; a beneficiary awaiting approval puts it off;
 * approvalAbove as it is now holds it; sealed under a key this gateway does not seal with, it is held
 * for an operator. Leased early, it is due at its time again.
 */
export async function sendDueStep(
  ctx: DomainContext,
  creates: CreateDisbursement,
  merchant: Merchant,
  record: Disbursement,
): Promise<Disbursement | undefined> {
  let claimed = false;
  let verdict: SendVerdict | undefined;
  const reads = await recheckReads(ctx, record);
  const { stored } = await ctx.writer.change(
    merchant.id,
    record.referenceId,
    (current) => {
      claimed = false;
      verdict = undefined;
      const now = ctx.now();
      // Due for a kind its status no longer calls for: what is due follows from its status.
      if (!awaitsItsSend(current)) return redue(current, now, ctx.policy);
      const sendAt = timeOf(current);
      if (sendAt !== undefined && now.getTime() < Date.parse(sendAt)) return { ...current, ...nextDue('SEND', sendAt) };
      if (isTooLate(current, now, ctx.policy)) return expiredUnsent(current, now.toISOString());
      // No process may start a send once shutdown began: it stays due for the next one.
      if (!creates.accepting) return undefined;
      verdict = recheckBeforeSend(ctx, merchant, current, reads, now, 'send');
      if (verdict?.kind === 'waiting')
        return current.status === 'SCHEDULED'
          ? sendPutOff(current, verdict.why, now, ctx.policy)
          : notSentYet(ctx, current, verdict.why, now);
      if (verdict?.kind === 'elsewhere') return notSentYet(ctx, current, verdict.why, now);
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
  if (verdict?.kind === 'elsewhere')
    ctx.onControl({ merchantId: merchant.id, referenceId: record.referenceId, action: 'sealed_elsewhere' });
  else if (verdict && verdict.kind !== 'waiting') ctx.onControl(verdictEvent(merchant, record.referenceId, verdict));
  if (!claimed) return stored;
  // The send's failures are recorded on the payout (UNKNOWN, or SCHEDULED again); there is no caller to tell.
  return creates.sendClaimed(merchant, stored).catch(() => ctx.store.get(merchant.id, record.referenceId));
}
