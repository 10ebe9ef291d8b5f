import { setTimeout as sleep } from 'node:timers/promises';
import { DomainContext } from './disbursement.context';
import { applyProviderAnswer } from './disbursement.answer';
import {
  badInput,
  GatewayError,
  outcomeUnknown,
  referenceConflict,
  requestConflict,
  upstreamUnavailable,
} from './disbursement.errors';
import { Disbursement, DisbursementRequest, isFinal, ProviderRecord } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { adopted, contentDiffers, newClaim } from './disbursement.record';
import { isStale, notFoundMeansNeverReceived, withDueNext } from './disbursement.checks';
import { heldForApproval } from './approval.records';
import { planCreate, refusalError, refusalEvent } from './disbursement.limits';
import { limitRefused, requested, whenVisible } from './audit.rules';
import { AuditAction, auditOf } from './audit.entry';
import { Actor, DEFAULT_APPROVAL_TTL_SECONDS, fromMinor, limitOf } from './payout.controls';
import { recordAnswered } from './create.settle';
import { scheduledFor, sendAtRefusal, sendsLater } from './schedule.records';
import { sealed } from './payout.seal';
import { trailFacts } from './payout.trail';

/**
 * What the claim stage leaves to do: send a claim now `sending`, tell of one `held` for approval or
 * `scheduled` for its sendAt, or nothing to send: the `stored` record is the answer.
 */
export type ClaimOutcome =
  | { next: 'send'; claim: Disbursement }
  | { next: 'held' | 'scheduled'; claim: Disbursement }
  | { next: 'stored'; record: Disbursement };

/** One create request and who asked. */
export interface CreateAttempt {
  merchant: Merchant;
  request: DisbursementRequest;
  fingerprint: string;
  actor: Actor;
  requestId?: string;
  payee?: Payee;
}

/** A payout to a beneficiary: its id, kept on the payout, and why it is held as to a new payee, when it is. */
export interface Payee {
  beneficiaryId: string;
  holdReason?: string;
}

/**
 * The create protocol's claim: stores the payout (sending, or held for approval) before the provider
 * is called, or finds the claim a retry, a second replica or a process before a restart stored, and
 * decides from it whether anything may be sent. Waits, polling every `pollMs`, while another replica
 * is sending this very payout.
 */
export async function claimPayout(ctx: DomainContext, attempt: CreateAttempt, pollMs: number): Promise<ClaimOutcome> {
  const { merchant, request, fingerprint: fp, actor, requestId, payee } = attempt;
  const { policy, now } = ctx;
  await refuseSendAtOfNew(ctx, attempt);
  const planned = await planOrRefuse(ctx, attempt);
  // A new payee is held whatever the amount; the limits still count it.
  const plan = { ...planned, awaiting: planned.awaiting || payee?.holdReason !== undefined };
  const later = sendsLater(request.sendAt, now());
  const at = now().toISOString();
  const fresh = {
    ...newClaim(merchant.id, request, fp, at, requestId, ctx.traceparent?.()),
    createdBy: actor.name,
    requesterId: actor.id,
    reservation: plan.reservation,
    ...(later && { sendAt: request.sendAt }),
    ...(payee && { beneficiaryId: payee.beneficiaryId }),
    // Scheduled within the controls, the requester's create is the decision the gateway sends it on at
    // its time; held, none yet; sent at once, the request itself goes now, and its client retries it.
    ...(later &&
      !plan.awaiting && { decision: { kind: 'WITHIN_LIMITS' as const, byId: actor.id, by: actor.name, at } }),
  };
  const unsealed = plan.awaiting
    ? heldForApproval(
        fresh,
        actor,
        merchant.controls?.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS,
        planned.awaiting || !payee?.holdReason
          ? `above ${fromMinor(limitOf(merchant.controls, 'approvalAbove', request.currency) ?? 0)} ${request.currency}`
          : payee.holdReason,
        now(),
      )
    : later
      ? scheduledFor(fresh, request.sendAt as string, now(), actor)
      : withDueNext({ ...fresh, sentAt: fresh.updatedAt }, now(), policy);
  // Only what the gateway sends later, on its own, needs a seal to be checked against then.
  const claim = plan.awaiting || later ? sealed(ctx.sealKeys[0], unsealed, fp) : unsealed;
  const deadline = now().getTime() + policy.staleClaimMs;
  let unclaimedChecked = false;
  for (;;) {
    const { existing, refused } = await ctx.writer.insert(claim, plan.caps, requested(claim, actor.name));
    if (refused) {
      ctx.onControl(refusalEvent(merchant, request, actor, refused.limit));
      const left = `${fromMinor(refused.remainingMinor)} ${request.currency} left today`;
      await ctx.writer.audit(merchant.id, [
        limitRefused(request, actor.name, refused.limit, now().toISOString(), left),
      ]);
      throw refusalError(request, refused);
    }
    if (!existing) return { next: plan.awaiting ? 'held' : later ? 'scheduled' : 'send', claim };
    if (!existing.request) {
      // A record no create claimed (learnt from a callback): one check-status decides what it is.
      if (unclaimedChecked)
        throw upstreamUnavailable(
          request.referenceId,
          'The payout record changed while it was checked; nothing was sent. Retry.',
        );
      unclaimedChecked = true;
      const adoptedRecord = await adoptUnclaimed(ctx, merchant, request, fp, existing);
      if (adoptedRecord) return { next: 'stored', record: adoptedRecord };
      continue;
    }
    if (existing.fingerprint !== fp) throw requestConflict(existing.request, request);
    // A final status is the answer, whoever is still sending (a callback can beat the create's own answer).
    if (isFinal(existing.status)) return { next: 'stored', record: existing };
    if (!existing.sending) {
      if (existing.status !== 'UNKNOWN') return { next: 'stored', record: existing };
      return takeOverUnknown(ctx, merchant, request, existing);
    }
    if (isStale(existing, now(), policy) || now().getTime() > deadline)
      return takeOverUnknown(ctx, merchant, request, existing);
    // Another replica is sending this very payout: wait for its answer instead of sending again.
    await sleep(pollMs);
  }
}

/**
 * A sendAt too early or too late is refused for a new payout only: whether it is depends on now, and
 * the retry of a payout that exists (its sendAt passed meanwhile) is answered from the stored record.
 */
async function refuseSendAtOfNew(ctx: DomainContext, { merchant, request }: CreateAttempt): Promise<void> {
  const why = sendAtRefusal(request.sendAt, ctx.now(), ctx.policy);
  if (why && !(await ctx.store.get(merchant.id, request.referenceId)))
    throw badInput(`Invalid input: sendAt ${why}`, ['input.sendAt']);
}

/** maxAmount refuses before anything is stored; its refusal is a control action, audited like the others. */
async function planOrRefuse(ctx: DomainContext, { merchant, request, actor }: CreateAttempt) {
  try {
    // A scheduled payout counts against the day it will be sent.
    const day = sendsLater(request.sendAt, ctx.now()) ? new Date(request.sendAt) : ctx.now();
    return planCreate(merchant, request, actor, day, ctx.dayTimeZone);
  } catch (error) {
    ctx.onControl(refusalEvent(merchant, request, actor, 'maxAmount'));
    const at = ctx.now().toISOString();
    const detail = error instanceof GatewayError ? error.message : 'above the largest payout allowed';
    await ctx.writer.audit(merchant.id, [limitRefused(request, actor.name, 'maxAmount', at, detail)]);
    throw error;
  }
}

/**
 * A record first learnt from a callback is this request's payout only when the provider has it with
 * the same amount, currency and account. When the provider never saw it, it is dropped and the create
 * goes ahead (undefined); other content is a REFERENCE_CONFLICT.
 */
async function adoptUnclaimed(
  ctx: DomainContext,
  merchant: Merchant,
  request: DisbursementRequest,
  fp: string,
  existing: Disbursement,
): Promise<Disbursement | undefined> {
  const { referenceId } = request;
  let found: ProviderRecord | undefined;
  try {
    found = await ctx.provider.checkStatus(merchant, referenceId, 'create');
  } catch {
    throw upstreamUnavailable(
      referenceId,
      'The payout provider could not be asked about this referenceId; nothing was sent. Retry later.',
    );
  }
  if (!found) {
    const at = ctx.now().toISOString();
    await ctx.writer.remove(
      merchant.id,
      referenceId,
      (current) => !current.request && current.version === existing.version,
      (current) => [
        auditOf(current, AuditAction.STATUS_CHECKED, at, {
          status: null,
          detail: 'learnt from a callback, but the provider has no such payout: dropped',
        }),
      ],
    );
    return undefined;
  }
  const differs = contentDiffers(request, found);
  if (differs.length > 0) throw referenceConflict(referenceId, differs);
  const providerRecord = found;
  const { stored } = await ctx.writer.change(
    merchant.id,
    referenceId,
    (current) => {
      if (current.request) return undefined;
      const base = adopted(current, request, fp);
      return (
        applyProviderAnswer(base, { record: providerRecord, source: 'STATUS_CHECK' }, ctx.now(), ctx.policy) ?? base
      );
    },
    (before, after) => [
      ...requested(after, 'unknown'),
      ...whenVisible(AuditAction.STATUS_CHECKED, 'the provider already had this payout')(before, after),
    ],
  );
  if (!stored) return undefined;
  if (stored.request && stored.fingerprint !== fp) throw requestConflict(stored.request, request);
  return stored;
}

/**
 * An earlier attempt's outcome is unknown: ask the provider before anything is sent again. Its "not
 * found" is trusted only once RESEND_AFTER_SECONDS have passed since that attempt could have left:
 * before then the answer stays OUTCOME_UNKNOWN and the rechecker keeps asking.
 */
async function takeOverUnknown(
  ctx: DomainContext,
  merchant: Merchant,
  request: DisbursementRequest,
  existing: Disbursement,
): Promise<ClaimOutcome> {
  const { store, policy, now } = ctx;
  let found: ProviderRecord | undefined;
  try {
    found = await ctx.provider.checkStatus(merchant, request.referenceId, 'create');
  } catch {
    throw outcomeUnknown(request.referenceId);
  }
  if (found) {
    const record = await recordAnswered(ctx, merchant, request.referenceId, found, 'STATUS_CHECK', false);
    return { next: 'stored', record };
  }
  // Whatever its row says, none whose keyed trail records it ended, or held for a second person who
  // has not approved it, is sent on its requester's retry.
  const trail = await trailFacts(ctx.records, ctx.entryKeys, existing);
  if (trail.ended || trail.awaitsDecision) return { next: 'stored', record: existing };
  // The provider never saw it: take the claim over (only one caller wins) and send.
  const since = existing.updatedAt;
  let won = false;
  const { stored: taken } = await ctx.writer.change(merchant.id, request.referenceId, (current) => {
    const at = now();
    // A claim still marked as sending is taken over only when its process is gone (stale), and
    // none is sent again while the last send may still be on its way in.
    won =
      current.status === 'UNKNOWN' &&
      current.updatedAt === since &&
      (!current.sending || isStale(current, at, policy)) &&
      notFoundMeansNeverReceived(current, at, policy);
    const iso = at.toISOString();
    return won ? withDueNext({ ...current, sending: true, sentAt: iso, updatedAt: iso }, at, policy) : undefined;
  });
  if (!won || !taken) {
    // Someone else moved first, or the first send may still arrive: report what is settled, or
    // let the client ask again; never loop here.
    const settled = await store.get(merchant.id, request.referenceId);
    if (settled && !settled.sending && settled.status !== 'UNKNOWN') return { next: 'stored', record: settled };
    throw outcomeUnknown(request.referenceId);
  }
  return { next: 'send', claim: taken };
}
