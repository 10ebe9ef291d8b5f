import { setTimeout as sleep } from 'node:timers/promises';
import { DomainContext } from './disbursement.context';
import { outcomeUnknown, requestConflict, storeUnavailable } from './disbursement.errors';
import { fingerprint } from './disbursement.fingerprint';
import { Disbursement, DisbursementRequest, isFinal } from './disbursement.model';
import { Merchant, StoreUnavailableError } from './disbursement.ports';
import { Actor, ANONYMOUS } from './payout.controls';
import { claimPayout, CreateAttempt, Payee } from './create.claim';
import { sendClaim } from './create.send';

interface InFlight {
  fingerprint: string;
  request: DisbursementRequest;
  result: Promise<Disbursement>;
}

const inFlightKey = (merchantId: string, referenceId: string) => `${merchantId}\u0000${referenceId}`;

/**
 * Creates payouts at most once, in stages: the claim (create.claim.ts), the send (create.send.ts)
 * and, after a failed send, the recovery (create.recovery.ts); create.settle.ts records where a
 * claim ends. The claim is stored before the provider is called, so a retry, a second replica or a
 * restart after a crash finds it and never sends the same payout twice; whenever the provider may
 * already have the payout, it is asked (check-status) before anything is sent again or the client
 * is told to change its request. This class shares a create in flight in this process and drains
 * them at shutdown.
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
  create(
    merchant: Merchant,
    request: DisbursementRequest,
    requestId?: string,
    actor: Actor = ANONYMOUS,
    payee?: Payee,
  ): Promise<Disbursement> {
    const key = inFlightKey(merchant.id, request.referenceId);
    const fp = fingerprint(request);
    const running = this.inFlight.get(key);
    if (running) {
      if (running.fingerprint !== fp) return Promise.reject(requestConflict(running.request, request));
      return running.result;
    }
    return this.track(key, fp, request, () =>
      this.createOnce({ merchant, request, fingerprint: fp, actor, requestId, payee }),
    );
  }

  /** False once shutdown has begun: no new send may start, so no approval should be stored. */
  get accepting(): boolean {
    return !this.closing;
  }

  /**
   * Sends a payout whose approval, or whose time, just came (the claim it became, "sending"): exactly
   * the create protocol's send, shared with any identical create running in this process.
   */
  sendClaimed(merchant: Merchant, claim: Disbursement): Promise<Disbursement> {
    const request = claim.request as DisbursementRequest;
    return this.track(inFlightKey(merchant.id, claim.referenceId), claim.fingerprint ?? '', request, () =>
      sendClaim(this.ctx, merchant, request, claim),
    );
  }

  /**
   * The answer for a payout another call is sending: that send's own answer when it runs in this
   * process, else the stored record once it stops "sending" (another replica's send), waiting at
   * most as long as a claim takes to go stale. Still sending then: the record as it is, UNKNOWN.
   */
  async awaitSending(merchant: Merchant, record: Disbursement): Promise<Disbursement> {
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
      // Only reached before anything was sent: once the provider is called, sendClaim owns the outcome.
      if (error instanceof StoreUnavailableError) throw storeUnavailable(request.referenceId);
      throw error;
    });
    let giveUp = () => {};
    const abandoned = new Promise<never>((_resolve, reject) => {
      giveUp = () => reject(outcomeUnknown(request.referenceId));
    });
    this.giveUp.add(giveUp);
    const result: Promise<Disbursement> = Promise.race([work, abandoned]).finally(() => {
      this.giveUp.delete(giveUp);
      // An approval's send may have taken the key over meanwhile: only this call's own entry goes.
      if (this.inFlight.get(key)?.result === result) this.inFlight.delete(key);
    });
    this.inFlight.set(key, { fingerprint: fp, request, result });
    return result;
  }

  /**
   * Shutdown: lets creates in flight finish for up to `graceMs`, then answers the rest OUTCOME_UNKNOWN.
   * Their claims stay as they are ("sending", UNKNOWN): the rechecker of a live replica, or of the next
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

  private async createOnce(attempt: CreateAttempt): Promise<Disbursement> {
    const outcome = await claimPayout(this.ctx, attempt, this.claimPollMs);
    if (outcome.next === 'stored') return outcome.record;
    if (outcome.next === 'send') return sendClaim(this.ctx, attempt.merchant, attempt.request, outcome.claim);
    // Held for approval, or scheduled: subscribers are told, nothing is sent.
    const { merchant, actor } = attempt;
    this.ctx.onControl({
      merchantId: merchant.id,
      referenceId: outcome.claim.referenceId,
      actor: actor.name,
      action: outcome.next,
    });
    return outcome.claim;
  }
}
