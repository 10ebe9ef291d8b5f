import { setTimeout as sleep } from 'node:timers/promises';
import { DomainContext } from './disbursement.context';
import { answered } from './disbursement.answer';
import {
  fromProviderError,
  outcomeUnknown,
  referenceConflict,
  requestConflict,
  storeUnavailable,
  upstreamUnavailable,
} from './disbursement.errors';
import { fingerprint } from './disbursement.fingerprint';
import { Disbursement, DisbursementRequest, EventSource, isFinal, ProviderRecord } from './disbursement.model';
import { Merchant, ProviderError, StoreUnavailableError } from './disbursement.ports';
import { adopted, changed, contentDiffers, markNeverReceived, markUnknown, newClaim } from './disbursement.record';
import { isStale, notFoundMeansNeverReceived, rescheduled, scheduled } from './disbursement.schedule';
import { applyStatusUpdate } from './disbursement.status';
import { approvalUndone, heldForApproval } from './approval.records';
import { planCreate, refusalError, refusalEvent } from './disbursement.limits';
import {
  answeredCreate,
  foundByCheck,
  limitRefused,
  requested,
  tookNothing,
  unanswered,
  whenVisible,
} from './audit.rules';
import { AuditAction, auditOf } from './audit.entry';
import { GatewayError } from './disbursement.errors';
import { Actor, ANONYMOUS, DEFAULT_APPROVAL_TTL_SECONDS, fromMinor, limitOf } from './payout.controls';

interface InFlight {
  fingerprint: string;
  request: DisbursementRequest;
  result: Promise<Disbursement>;
}

const inFlightKey = (merchantId: string, referenceId: string) => `${merchantId}\u0000${referenceId}`;

/**
 * Creates payouts at most once. The claim is stored before the provider is called, so a retry,
 * a second replica or a restart after a crash finds it and never sends the same payout twice;
 * whenever the provider may already have the payout, it is asked (check-status) before anything
 * is sent again or the client is told to change its request.
 */
export class CreateDisbursement {
  private readonly inFlight = new Map<string, InFlight>();
  /** Answers OUTCOME_UNKNOWN to each create still running, at shutdown. */
  private readonly giveUp = new Set<() => void>();
  private closing = false;

  constructor(
    private readonly ctx: DomainContext,
    /** How often a request waiting on another replica's in-flight create looks again. */
    private readonly claimPollMs = 100,
  ) {}

  /** Concurrent identical requests in this process share one provider call and its answer. */
  run(
    merchant: Merchant,
    request: DisbursementRequest,
    requestId?: string,
    actor: Actor = ANONYMOUS,
  ): Promise<Disbursement> {
    const key = inFlightKey(merchant.id, request.referenceId);
    const fp = fingerprint(request);
    const running = this.inFlight.get(key);
    if (running) {
      if (running.fingerprint !== fp) return Promise.reject(requestConflict(running.request, request));
      return running.result;
    }
    return this.track(key, fp, request, () => this.createOnce(merchant, request, fp, actor, requestId));
  }

  /** False once shutdown has begun: no new send may start, so no approval should be stored. */
  get accepting(): boolean {
    return !this.closing;
  }

  /**
   * Sends a payout whose approval was just stored (the claim it became, "sending"): exactly the
   * create protocol's send, shared with any identical create running in this process.
   */
  sendApproved(merchant: Merchant, claim: Disbursement): Promise<Disbursement> {
    const request = claim.request as DisbursementRequest;
    return this.track(inFlightKey(merchant.id, claim.referenceId), claim.fingerprint ?? '', request, () =>
      this.send(merchant, request, claim),
    );
  }

  /**
   * The answer for a payout another call is sending: that send's own answer when it runs in this
   * process, else the stored record once it stops "sending" (another replica's send), waiting at
   * most as long as a claim takes to go stale. Still sending then: the record as it is, UNKNOWN.
   */
  async answerOf(merchant: Merchant, record: Disbursement): Promise<Disbursement> {
    const running = this.inFlight.get(inFlightKey(merchant.id, record.referenceId));
    // Only a create of this very request is that send: another request's would answer REQUEST_CONFLICT.
    if (running && running.fingerprint === record.fingerprint) return running.result;
    const { policy, store } = this.ctx;
    let current = record;
    for (let waited = 0; current.sending && !isFinal(current.status) && waited < policy.staleClaimMs;) {
      await sleep(this.claimPollMs);
      waited += this.claimPollMs;
      current = (await store.get(merchant.id, record.referenceId)) ?? current;
    }
    return current;
  }

  private track(
    key: string,
    fp: string,
    request: DisbursementRequest,
    start: () => Promise<Disbursement>,
  ): Promise<Disbursement> {
    if (this.closing) return Promise.reject(outcomeUnknown(request.referenceId));
    const work = start().catch((error: unknown) => {
      // Only reached before anything was sent: once the provider is called, send() owns the outcome.
      if (error instanceof StoreUnavailableError) throw storeUnavailable(request.referenceId);
      throw error;
    });
    let giveUp = () => {};
    const abandoned = new Promise<never>((_resolve, reject) => {
      giveUp = () => reject(outcomeUnknown(request.referenceId));
    });
    this.giveUp.add(giveUp);
    const result = Promise.race([work, abandoned]).finally(() => {
      this.giveUp.delete(giveUp);
      this.inFlight.delete(key);
    });
    this.inFlight.set(key, { fingerprint: fp, request, result });
    return result;
  }

  /**
   * Shutdown: lets creates in flight finish for up to `graceMs`, then answers the rest OUTCOME_UNKNOWN.
   * Their claims stay as they are ("sending", UNKNOWN): the reconciler of a live replica, or of the next
   * process, settles them once they are stale, so nothing is ever sent twice.
   */
  async drain(graceMs: number): Promise<void> {
    const running = [...this.inFlight.values()].map((f) => f.result.catch(() => undefined));
    if (running.length > 0) {
      const grace = new AbortController();
      await Promise.race([
        Promise.all(running),
        sleep(graceMs, undefined, { signal: grace.signal }).catch(() => undefined),
      ]);
      grace.abort();
    }
    this.closing = true;
    for (const giveUp of this.giveUp) giveUp();
  }

  private async createOnce(
    merchant: Merchant,
    request: DisbursementRequest,
    fp: string,
    actor: Actor,
    requestId?: string,
  ): Promise<Disbursement> {
    const { policy, now } = this.ctx;
    const plan = await this.plan(merchant, request, actor);
    const fresh = {
      ...newClaim(merchant.id, request, fp, now().toISOString(), requestId, this.ctx.traceparent?.()),
      createdBy: actor.name,
      reservation: plan.reservation,
    };
    const claim = plan.awaiting
      ? heldForApproval(
          fresh,
          actor,
          merchant.controls?.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS,
          this.threshold(merchant, request),
          now(),
        )
      : scheduled({ ...fresh, sentAt: fresh.updatedAt }, now(), policy);
    const deadline = now().getTime() + policy.staleClaimMs;
    let orphanChecked = false;
    for (;;) {
      const { existing, refused } = await this.ctx.writer.insert(claim, plan.caps, requested(claim, actor.name));
      if (refused) {
        this.ctx.onControl(refusalEvent(merchant, request, actor, refused.limit));
        const left = `${fromMinor(refused.remainingMinor)} ${request.currency} left today`;
        await this.ctx.writer.audit(merchant.id, [
          limitRefused(request, actor.name, refused.limit, now().toISOString(), left),
        ]);
        throw refusalError(request, refused);
      }
      if (!existing) return plan.awaiting ? this.held(merchant, claim, actor) : this.send(merchant, request, claim);
      if (!existing.request) {
        // A record no create claimed (learnt from a callback): one check-status decides what it is.
        if (orphanChecked)
          throw upstreamUnavailable(
            request.referenceId,
            'The payout record changed while it was checked; nothing was sent. Retry.',
          );
        orphanChecked = true;
        const adoptedRecord = await this.orphan(merchant, request, fp, existing);
        if (adoptedRecord) return adoptedRecord;
        continue;
      }
      if (existing.fingerprint !== fp) throw requestConflict(existing.request, request);
      // A final status is the answer, whoever is still sending (a callback can beat the create's own answer).
      if (isFinal(existing.status)) return existing;
      if (!existing.sending) {
        if (existing.status !== 'UNKNOWN') return existing;
        return this.resolveUnknown(merchant, request, existing);
      }
      if (isStale(existing, now(), policy) || now().getTime() > deadline)
        return this.resolveUnknown(merchant, request, existing);
      // Another replica is sending this very payout: wait for its answer instead of sending again.
      await sleep(this.claimPollMs);
    }
  }

  /** maxAmount refuses before anything is stored; its refusal is a control action, audited like the others. */
  private async plan(merchant: Merchant, request: DisbursementRequest, actor: Actor) {
    try {
      return planCreate(merchant, request, actor, this.ctx.now(), this.ctx.dayTimeZone);
    } catch (error) {
      this.ctx.onControl(refusalEvent(merchant, request, actor, 'maxAmount'));
      const at = this.ctx.now().toISOString();
      const detail = error instanceof GatewayError ? error.message : 'above the largest payout allowed';
      await this.ctx.writer.audit(merchant.id, [limitRefused(request, actor.name, 'maxAmount', at, detail)]);
      throw error;
    }
  }

  private threshold(merchant: Merchant, request: DisbursementRequest): string {
    return fromMinor(limitOf(merchant.controls, 'approvalAbove', request.currency) ?? 0);
  }

  /** Stored AWAITING_APPROVAL: subscribers are told, nothing is sent. */
  private async held(merchant: Merchant, record: Disbursement, actor: Actor): Promise<Disbursement> {
    this.ctx.onControl({ merchantId: merchant.id, referenceId: record.referenceId, actor: actor.name, action: 'held' });
    return record;
  }

  /**
   * A record first learnt from a callback is this request's payout only when the provider has it with
   * the same amount, currency and account. When the provider never saw it, it is dropped and the create
   * goes ahead (undefined); other content is a REFERENCE_CONFLICT.
   */
  private async orphan(
    merchant: Merchant,
    request: DisbursementRequest,
    fp: string,
    existing: Disbursement,
  ): Promise<Disbursement | undefined> {
    const { referenceId } = request;
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.ctx.provider.checkStatus(merchant, referenceId, 'create');
    } catch {
      throw upstreamUnavailable(
        referenceId,
        'The payout provider could not be asked about this referenceId; nothing was sent. Retry later.',
      );
    }
    if (!answer) {
      const at = this.ctx.now().toISOString();
      await this.ctx.writer.remove(
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
    const differs = contentDiffers(request, answer);
    if (differs.length > 0) throw referenceConflict(referenceId, differs);
    const found = answer;
    const { stored } = await this.ctx.writer.change(
      merchant.id,
      referenceId,
      (current) => {
        if (current.request) return undefined;
        const base = adopted(current, request, fp);
        return answered(base, { record: found, source: 'STATUS_CHECK' }, this.ctx.now(), this.ctx.policy) ?? base;
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
   * before then the answer stays OUTCOME_UNKNOWN and the reconciler keeps asking.
   */
  private async resolveUnknown(
    merchant: Merchant,
    request: DisbursementRequest,
    existing: Disbursement,
  ): Promise<Disbursement> {
    const { store, policy, now } = this.ctx;
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.ctx.provider.checkStatus(merchant, request.referenceId, 'create');
    } catch {
      throw outcomeUnknown(request.referenceId);
    }
    if (answer) return this.settleClaim(merchant, request, answer, 'STATUS_CHECK', false);
    // The provider never saw it: take the claim over (only one caller wins) and send.
    const since = existing.updatedAt;
    let won = false;
    // Only the store's last run of the change was stored: `won` is what that run decided, or two
    // replicas could both send.
    const { stored: taken } = await this.ctx.writer.change(merchant.id, request.referenceId, (current) => {
      const at = now();
      // A claim still marked as sending is taken over only when its process is gone (stale), and
      // none is sent again while the last send may still be on its way in.
      won =
        current.status === 'UNKNOWN' &&
        current.updatedAt === since &&
        (!current.sending || isStale(current, at, policy)) &&
        notFoundMeansNeverReceived(current, at, policy);
      const iso = at.toISOString();
      return won ? scheduled({ ...current, sending: true, sentAt: iso, updatedAt: iso }, at, policy) : undefined;
    });
    if (!won || !taken) {
      // Someone else moved first, or the first send may still arrive: report what is settled, or
      // let the client ask again; never loop here.
      const settled = await store.get(merchant.id, request.referenceId);
      if (settled && !settled.sending && settled.status !== 'UNKNOWN') return settled;
      throw outcomeUnknown(request.referenceId);
    }
    return this.send(merchant, request, taken);
  }

  private async send(merchant: Merchant, request: DisbursementRequest, claim: Disbursement): Promise<Disbursement> {
    let answer: ProviderRecord;
    try {
      answer = await this.ctx.provider.create(merchant, request);
    } catch (error) {
      return this.afterFailedSend(merchant, request, claim, error);
    }
    return this.settleClaim(merchant, request, answer, 'CREATE', true);
  }

  private async afterFailedSend(
    merchant: Merchant,
    request: DisbursementRequest,
    claim: Disbursement,
    error: unknown,
  ): Promise<Disbursement> {
    const { referenceId } = request;
    const kind = error instanceof ProviderError ? error.kind : 'unknown';
    // A 5xx came after the request arrived; a 400 may be the provider refusing a referenceId it already
    // has (a claim lost with an emptied store): only the provider's own record can tell.
    if (kind === 'server-error' || kind === 'rejected')
      return this.askAfterRefusal(merchant, request, claim, error as ProviderError);
    if (kind === 'unknown') {
      await this.markUnknown(
        merchant,
        referenceId,
        error instanceof Error ? error.message : 'the provider call failed',
      );
      throw outcomeUnknown(referenceId);
    }
    // auth, rate-limited, unavailable: the provider created nothing; an HTTP status says it answered.
    const answeredIt = error instanceof ProviderError && error.details.status !== undefined;
    const why = error instanceof Error ? error.message : 'the provider call failed';
    await this.releaseClaim(claim, answeredIt, answeredIt ? `refused: ${why}` : `not sent: ${why}`);
    throw fromProviderError(error, referenceId);
  }

  /**
   * After a 5xx or a 400, check-status decides: the provider has this payout → its record is the answer;
   * it has another payout under this referenceId → REFERENCE_CONFLICT; it has none → the refusal stands
   * and the claim is released; it cannot be asked → OUTCOME_UNKNOWN.
   */
  private async askAfterRefusal(
    merchant: Merchant,
    request: DisbursementRequest,
    claim: Disbursement,
    error: ProviderError,
  ): Promise<Disbursement> {
    const { referenceId } = request;
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.ctx.provider.checkStatus(merchant, referenceId, 'create');
    } catch {
      await this.markUnknown(merchant, referenceId, error.message);
      throw outcomeUnknown(referenceId);
    }
    if (!answer) {
      await this.releaseClaim(claim, true, `refused: ${error.message}; the provider has no such payout`);
      if (error.kind === 'server-error')
        throw upstreamUnavailable(
          referenceId,
          'The payout provider failed and did not create the payout; it is safe to retry.',
        );
      throw fromProviderError(error, referenceId);
    }
    const differs = contentDiffers(request, answer);
    if (differs.length === 0) return this.settleClaim(merchant, request, answer, 'STATUS_CHECK', true);
    await this.becomeProviders(merchant, claim, answer).catch(() => undefined);
    throw referenceConflict(referenceId, differs);
  }

  /** The provider holds another payout under this referenceId: the record becomes that payout, with no request of ours. */
  private async becomeProviders(merchant: Merchant, claim: Disbursement, answer: ProviderRecord): Promise<void> {
    const audit = foundByCheck(
      true,
      'the provider holds another payout under this referenceId: the record is that one',
    );
    await this.ctx.writer.change(
      merchant.id,
      claim.referenceId,
      (current) => {
        if (current.fingerprint !== claim.fingerprint) return undefined;
        const now = this.ctx.now();
        const at = now.toISOString();
        const base: Disbursement = {
          ...current,
          request: undefined,
          fingerprint: undefined,
          sending: false,
          amount: answer.amount ?? current.amount,
          currency: answer.currency ?? current.currency,
          accountNumber: answer.accountNumber ?? current.accountNumber,
          narration: answer.narration,
        };
        const next =
          applyStatusUpdate(base, { record: answer, source: 'STATUS_CHECK', at }) ?? changed(current, base, at);
        return rescheduled(current, next, now, this.ctx.policy);
      },
      audit,
    );
  }

  /**
   * The provider's answer to our create (or its record found by check-status, `sentJustNow` when our
   * send just left): the claim is no longer in flight.
   */
  private async settleClaim(
    merchant: Merchant,
    request: DisbursementRequest,
    answer: ProviderRecord,
    source: EventSource,
    sentJustNow: boolean,
  ): Promise<Disbursement> {
    const { referenceId } = request;
    const audit = source === 'CREATE' ? answeredCreate : foundByCheck(sentJustNow);
    try {
      const { stored } = await this.ctx.writer.change(
        merchant.id,
        referenceId,
        (current) => answered(current, { record: answer, source }, this.ctx.now(), this.ctx.policy, true),
        audit,
      );
      if (stored) return stored;
    } catch {
      // The provider has the payout but it could not be recorded: the claim stays "sending",
      // and the reconciler finds it as a stale claim once the store answers again.
    }
    throw outcomeUnknown(referenceId);
  }

  private async markUnknown(merchant: Merchant, referenceId: string, reason: string): Promise<void> {
    await this.ctx.writer
      .change(
        merchant.id,
        referenceId,
        (current) => {
          const now = this.ctx.now();
          return rescheduled(current, markUnknown(current, reason, now.toISOString()), now, this.ctx.policy);
        },
        unanswered(reason),
      )
      .catch(() => undefined);
  }

  /**
   * The provider created nothing: a new claim goes (its reservation with it), so the client may retry;
   * an approved one goes back to awaiting approval, so it is neither lost nor sent. One a client has
   * already seen UNKNOWN stays, marked never received: gone, it would come back with its version
   * starting over, and watchers would drop its next states as ones they had seen.
   */
  private async releaseClaim(claim: Disbursement, sentJustNow: boolean, why: string): Promise<void> {
    const ours = (current: Disbursement) => current.sending && current.fingerprint === claim.fingerprint;
    const seen = (current: Disbursement) => current.status === 'UNKNOWN' && current.version > 0;
    const at = this.ctx.now().toISOString();
    const audit = tookNothing(sentJustNow, why, at);
    if (claim.approval?.decision === 'APPROVED') {
      await this.ctx.writer
        .change(
          claim.merchantId,
          claim.referenceId,
          (current) =>
            ours(current) && current.approval?.decision === 'APPROVED'
              ? approvalUndone(current, 'the provider took nothing', at)
              : undefined,
          audit,
        )
        .catch(() => undefined);
      return;
    }
    if (seen(claim)) {
      await this.ctx.writer
        .change(
          claim.merchantId,
          claim.referenceId,
          (current) => (ours(current) && seen(current) ? markNeverReceived(current, at) : undefined),
          audit,
        )
        .catch(() => undefined);
      return;
    }
    await this.ctx.writer
      .remove(claim.merchantId, claim.referenceId, (current) => ours(current) && !seen(current), audit)
      .catch(() => undefined);
  }
}
