import { DomainContext } from './disbursement.context';
import { applyProviderAnswer } from './disbursement.answer';
import { outcomeUnknown } from './disbursement.errors';
import { Disbursement, EventSource, ProviderRecord } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { markNeverReceived, markUnknown } from './disbursement.record';
import { withDueNextOnChange } from './disbursement.checks';
import { approvalUndone } from './approval.records';
import { sendPutOff } from './schedule.records';
import { answeredCreate, foundByCheck, tookNothing, unanswered } from './audit.rules';

/*
 * Where a claim ends (docs/money-safety.md, "The claim, and its states"): answered, UNKNOWN, or
 * released (gone, kept "never received", or back to awaiting approval).
 */

/**
 * Answered: the provider's reply to our create, or its record found by check-status (`sentJustNow`
 * when our send just left). The claim is no longer in flight.
 */
export async function recordAnswered(
  ctx: DomainContext,
  merchant: Merchant,
  referenceId: string,
  providerRecord: ProviderRecord,
  source: EventSource,
  sentJustNow: boolean,
): Promise<Disbursement> {
  const audit = source === 'CREATE' ? answeredCreate : foundByCheck(sentJustNow);
  try {
    const { stored } = await ctx.writer.change(
      merchant.id,
      referenceId,
      (current) => applyProviderAnswer(current, { record: providerRecord, source }, ctx.now(), ctx.policy, true),
      audit,
    );
    if (stored) return stored;
  } catch {
    // The provider has the payout but it could not be recorded: the claim stays "sending",
    // and the rechecker finds it as a stale claim once the store answers again.
  }
  throw outcomeUnknown(referenceId);
}

/** UNKNOWN: nobody can tell whether the provider took the payout; the rechecker asks later. */
export async function recordUnknown(
  ctx: DomainContext,
  merchant: Merchant,
  referenceId: string,
  reason: string,
): Promise<void> {
  await ctx.writer
    .change(
      merchant.id,
      referenceId,
      (current) => {
        const now = ctx.now();
        return withDueNextOnChange(current, markUnknown(current, reason, now.toISOString()), now, ctx.policy);
      },
      unanswered(reason),
    )
    .catch(() => undefined);
}

/**
 * Released: the provider created nothing. A new claim goes (its reservation with it), so the client
 * may retry; a scheduled one is SCHEDULED again, tried later until it expires; an approved one goes
 * back to awaiting approval, so it is neither lost nor sent. One a
 * client has already seen UNKNOWN stays, marked never received: gone, it would come back with its
 * version starting over, and watchers would drop its next states as ones they had seen.
 */
export async function releaseClaim(
  ctx: DomainContext,
  claim: Disbursement,
  sentJustNow: boolean,
  why: string,
): Promise<void> {
  const ours = (current: Disbursement) => current.sending && current.fingerprint === claim.fingerprint;
  const seen = (current: Disbursement) => current.status === 'UNKNOWN' && current.version > 0;
  const at = ctx.now().toISOString();
  const audit = tookNothing(sentJustNow, why, at);
  if (claim.sendAt !== undefined) {
    await ctx.writer
      .change(
        claim.merchantId,
        claim.referenceId,
        (current) =>
          ours(current) && current.sendAt !== undefined ? sendPutOff(current, why, ctx.now(), ctx.policy) : undefined,
        audit,
      )
      .catch(() => undefined);
    return;
  }
  if (claim.approval?.decision === 'APPROVED') {
    await ctx.writer
      .change(
        claim.merchantId,
        claim.referenceId,
        (current) =>
          ours(current) && current.approval?.decision === 'APPROVED'
            ? approvalUndone(current, 'the provider took nothing', at, ctx.sealKeys[0])
            : undefined,
        audit,
      )
      .catch(() => undefined);
    return;
  }
  if (seen(claim)) {
    await ctx.writer
      .change(
        claim.merchantId,
        claim.referenceId,
        (current) => (ours(current) && seen(current) ? markNeverReceived(current, at) : undefined),
        audit,
      )
      .catch(() => undefined);
    return;
  }
  await ctx.writer
    .remove(claim.merchantId, claim.referenceId, (current) => ours(current) && !seen(current), audit)
    .catch(() => undefined);
}
