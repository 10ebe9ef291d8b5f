import { Repeater } from '@repeaterjs/repeater';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from './disbursement.errors';
import { differingFields, fingerprint } from './disbursement.fingerprint';
import { Disbursement, DisbursementRequest, EventSource, isFinal, ProviderRecord } from './disbursement.model';
import { DisbursementEvents, DisbursementStore, Merchant, ProviderError, ProviderPort, StoreUnavailableError } from './disbursement.ports';
import { ReconcilePolicy, scheduled } from './disbursement.schedule';
import { applyStatusUpdate } from './disbursement.status';

export interface DisbursementServiceOptions {
  store: DisbursementStore;
  events: DisbursementEvents;
  provider: ProviderPort;
  /** How long a create may take at the provider; a claim older than this is no longer in flight. */
  upstreamTimeoutMs: number;
  /** How often a request waiting on another replica's in-flight create looks again. */
  claimPollMs?: number;
  reconcile: Omit<ReconcilePolicy, 'staleClaimMs'>;
  /** Called once when a payout reaches a final status (relay to the client's own callbackUrl). */
  onFinal?: (record: Disbursement) => void;
  now?: () => Date;
}

interface InFlight {
  fingerprint: string;
  request: DisbursementRequest;
  result: Promise<Disbursement>;
}

/** What a wait raced against the watcher's end answers when the watcher ended first. */
const STOPPED = Symbol('stopped');

const inFlightKey = (merchantId: string, referenceId: string) => `${merchantId}\u0000${referenceId}`;

/**
 * Creates payouts at most once and applies what the provider says about them.
 * The claim is stored before the provider is called, so a retry, a second replica or a
 * restart after a crash finds it and never sends the same payout twice.
 */
export class DisbursementService {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly now: () => Date;
  private readonly policy: ReconcilePolicy;

  constructor(private readonly opts: DisbursementServiceOptions) {
    this.now = opts.now ?? (() => new Date());
    this.policy = { ...opts.reconcile, staleClaimMs: opts.upstreamTimeoutMs * 2 };
  }

  getMany(merchant: Merchant, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    return this.opts.store.getMany(merchant.id, referenceIds);
  }

  /**
   * One payout's states for a subscriber: the current one first (when known), then each change,
   * ending after a final status. Subscribes before reading, so nothing published in between is lost,
   * and drops anything not newer than what it has already sent.
   *
   * A Repeater, not an async generator: graphql-ws awaits `return()` when a socket closes, and a
   * generator's `return()` waits until its pending `await` settles (for a payout that never changes,
   * never). A Repeater's `return()` answers at once, ends the pending `next()`, and resolves `stop`,
   * which every wait below races, so the listener is removed whatever the watcher was waiting on.
   */
  watch(merchant: Merchant, referenceId: string): AsyncIterableIterator<Disbursement> {
    const { events, store } = this.opts;
    return new Repeater<Disbursement>(async (push, stop) => {
      const stopped = stop.then((): typeof STOPPED => STOPPED);
      const changes = events.watch(merchant.id, referenceId)[Symbol.asyncIterator]();
      // The first next() starts listening; the store is read only once listening is active.
      let pending = changes.next();
      try {
        if ((await Promise.race([events.listening(merchant.id, referenceId), stopped])) === STOPPED) return;
        const current = await Promise.race([store.get(merchant.id, referenceId), stopped]);
        if (current === STOPPED) return;
        let seen = -1;
        // A claim whose create is still in flight says nothing yet, unless a callback already did.
        if (current && !(current.sending && current.status === 'UNKNOWN')) {
          seen = current.version;
          await push(current);
          if (isFinal(current.status)) return;
        }
        for (;;) {
          const next = await Promise.race([pending, stopped]);
          if (next === STOPPED || next.done) return;
          pending = changes.next();
          if (next.value.version <= seen) continue;
          seen = next.value.version;
          await push(next.value);
          if (isFinal(next.value.status)) return;
        }
      } finally {
        // A Repeater ends only when stopped, not when this function returns.
        stop();
        await changes.return?.();
      }
    });
  }

  /** Every change of a merchant's payouts, as it happens; yoga's Repeater ends at once on `return()` too. */
  watchMerchant(merchant: Merchant): AsyncIterable<Disbursement> {
    return this.opts.events.watchMerchant(merchant.id);
  }

  /** Concurrent identical requests in this process share one provider call and its answer. */
  create(merchant: Merchant, request: DisbursementRequest, requestId?: string): Promise<Disbursement> {
    const key = inFlightKey(merchant.id, request.referenceId);
    const fp = fingerprint(request);
    const running = this.inFlight.get(key);
    if (running) {
      if (running.fingerprint !== fp) return Promise.reject(conflict(running.request, request));
      return running.result;
    }
    const result = this.createOnce(merchant, request, fp, requestId)
      .catch((error: unknown) => {
        // Only reached before anything was sent: once the provider is called, send() owns the outcome.
        if (error instanceof StoreUnavailableError) throw storeUnavailable(request.referenceId);
        throw error;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, { fingerprint: fp, request, result });
    return result;
  }

  /** Asks the provider for the current state and applies it through the status rules. */
  async refresh(merchant: Merchant, referenceId: string): Promise<Disbursement | undefined> {
    const current = await this.opts.store.get(merchant.id, referenceId);
    if (!current) return undefined;
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.opts.provider.checkStatus(merchant, referenceId);
    } catch (error) {
      throw toGatewayError(error, referenceId);
    }
    if (!answer) return current;
    return (await this.transition(merchant.id, referenceId, this.statusChange(answer, 'STATUS_CHECK'))) ?? current;
  }

  /** The status rules applied to a stored record, with its next check rescheduled on a status change. */
  private statusChange(record: ProviderRecord, source: EventSource, deliveryId?: string) {
    return (current: Disbursement): Disbursement | undefined => {
      const next = applyStatusUpdate(current, { record, source, at: this.now().toISOString(), deliveryId });
      return next && this.rescheduled(current, next);
    };
  }

  /**
   * The reconciler's step for one due record: ask the provider and apply the answer.
   * A payout the provider never saw stays UNKNOWN and is no longer checked: only the client's
   * retry of the same request may send it, after asking the provider once more.
   */
  async reconcile(merchant: Merchant, record: Disbursement): Promise<Disbursement | undefined> {
    const { referenceId } = record;
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.opts.provider.checkStatus(merchant, referenceId);
    } catch {
      return this.transition(merchant.id, referenceId, (current) =>
        this.scheduleNext({ ...current, sending: this.stillSending(current), checkAttempts: current.checkAttempts + 1 }),
      );
    }
    if (answer) {
      const found = answer;
      return this.transition(merchant.id, referenceId, (current) => {
        if (this.stillSending(current)) return undefined;
        const next = applyStatusUpdate(current, { record: found, source: 'STATUS_CHECK', at: this.now().toISOString() });
        if (next) return this.rescheduled(current, { ...next, sending: false });
        return this.scheduleNext({ ...current, sending: false, checkAttempts: current.checkAttempts + 1 });
      });
    }
    return this.transition(merchant.id, referenceId, (current) => {
      if (this.stillSending(current)) return undefined;
      if (current.status !== 'UNKNOWN') return this.scheduleNext({ ...current, checkAttempts: current.checkAttempts + 1 });
      const at = this.now().toISOString();
      return {
        ...current,
        sending: false,
        nextCheckAt: undefined,
        updatedAt: at,
        version: current.version + 1,
        history: [...current.history, { status: 'UNKNOWN', message: NEVER_RECEIVED, source: 'STATUS_CHECK', at }],
      };
    });
  }

  /** Atomic change of one record; publishes a real change and reports a new final status once. */
  private async transition(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<Disbursement | undefined> {
    return (await this.transitionReporting(merchantId, referenceId, change)).stored;
  }

  private async transitionReporting(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<{ stored?: Disbursement; changed: boolean }> {
    let before: Disbursement | undefined;
    let changed = false;
    const stored = await this.opts.store.update(merchantId, referenceId, (current) => {
      before = current;
      const next = change(current);
      changed = next !== undefined && next.version !== current.version;
      return next;
    });
    if (changed && stored) {
      await this.opts.events.publish(stored);
      if (before && !isFinal(before.status) && isFinal(stored.status)) this.opts.onFinal?.(stored);
    }
    return { stored, changed };
  }

  /** A status change restarts the backoff; the next check follows from the new state. */
  private rescheduled(current: Disbursement, next: Disbursement): Disbursement {
    if (next.status === current.status && next.sending === current.sending) return next;
    return scheduled({ ...next, checkAttempts: 0 }, this.now(), this.policy);
  }

  private scheduleNext(record: Disbursement): Disbursement {
    return scheduled(record, this.now(), this.policy);
  }

  /** A create may still be under way: its own answer settles the record, not the reconciler. */
  private stillSending(record: Disbursement): boolean {
    return record.sending && !this.isStale(record);
  }

  /** Older than any create may take: a claim this old that still says "sending" belongs to a dead process. */
  private isStale(record: Disbursement): boolean {
    return this.now().getTime() - Date.parse(record.updatedAt) > this.policy.staleClaimMs;
  }

  /**
   * A provider callback. A payout the gateway has no record of is still kept (the provider has it),
   * and a later create with its referenceId adopts it instead of sending it again.
   */
  async applyCallback(
    merchantId: string,
    record: ProviderRecord,
    deliveryId?: string,
  ): Promise<{ record: Disbursement; changed: boolean }> {
    const update = this.statusChange(record, 'CALLBACK', deliveryId);
    let result = await this.transitionReporting(merchantId, record.referenceId, update);
    if (!result.stored) {
      await this.opts.store.insertIfAbsent(
        this.newRecord({
          merchantId,
          referenceId: record.referenceId,
          channel: record.paymentType === 'BANK' ? 'BANK' : 'MOBILE_MONEY',
          sending: false,
          paymentType: 'OTHER',
          amount: record.amount ?? '0',
          currency: record.currency ?? '',
          accountNumber: record.accountNumber ?? '',
        }),
      );
      result = await this.transitionReporting(merchantId, record.referenceId, update);
    }
    if (!result.stored) throw new Error(`payout ${record.referenceId} vanished while its callback was applied`);
    return { record: result.stored, changed: result.changed };
  }

  private async createOnce(merchant: Merchant, request: DisbursementRequest, fp: string, requestId?: string): Promise<Disbursement> {
    const claim = this.newClaim(merchant, request, fp, requestId);
    const deadline = Date.now() + this.policy.staleClaimMs;
    for (;;) {
      const existing = await this.opts.store.insertIfAbsent(claim);
      if (!existing) return this.send(merchant, request, claim);
      if (existing.request && existing.fingerprint !== fp) throw conflict(existing.request, request);
      if (!existing.request) return this.adopt(merchant, request, fp);
      if (!existing.sending) {
        if (existing.status !== 'UNKNOWN') return existing;
        return this.resolveUnknown(merchant, request, existing);
      }
      if (this.isStale(existing) || Date.now() > deadline) return this.resolveUnknown(merchant, request, existing);
      // Another replica is sending this very payout: wait for its answer instead of sending again.
      await sleep(this.opts.claimPollMs ?? 100);
    }
  }

  private newClaim(merchant: Merchant, request: DisbursementRequest, fp: string, requestId?: string): Disbursement {
    return this.scheduleNext(
      this.newRecord({
        merchantId: merchant.id,
        referenceId: request.referenceId,
        requestId,
        channel: request.channel,
        request,
        fingerprint: fp,
        sending: true,
        paymentType: request.channel === 'BANK' ? 'BANK' : 'OTHER',
        amount: request.amount,
        currency: request.currency,
        accountNumber: request.accountNumber,
        narration: request.narration,
      }),
    );
  }

  /** A record the provider has said nothing about yet: UNKNOWN, no history, version 0. */
  private newRecord(
    fields: Omit<Disbursement, 'status' | 'updatedAt' | 'version' | 'history' | 'deliveryIds' | 'checkAttempts'>,
  ): Disbursement {
    return {
      ...fields,
      status: 'UNKNOWN',
      updatedAt: this.now().toISOString(),
      version: 0,
      history: [],
      deliveryIds: [],
      checkAttempts: 0,
    };
  }

  /** A record first learnt from a callback: the provider already has it, so it is never sent again. */
  private async adopt(merchant: Merchant, request: DisbursementRequest, fp: string): Promise<Disbursement> {
    const stored = await this.opts.store.update(merchant.id, request.referenceId, (current) =>
      current.request ? undefined : { ...current, request, fingerprint: fp },
    );
    if (stored?.fingerprint !== fp && stored?.request) throw conflict(stored.request, request);
    if (!stored) throw new GatewayError('OUTCOME_UNKNOWN', 'The payout record vanished; retry the request.');
    return stored;
  }

  /** An earlier attempt's outcome is unknown: ask the provider before anything is sent again. */
  private async resolveUnknown(merchant: Merchant, request: DisbursementRequest, existing: Disbursement): Promise<Disbursement> {
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.opts.provider.checkStatus(merchant, request.referenceId);
    } catch {
      throw outcomeUnknown(request.referenceId);
    }
    if (answer) return this.settleClaim(merchant.id, request.referenceId, answer, 'STATUS_CHECK');
    // The provider never saw it: take the claim over (only one caller wins) and send.
    const since = existing.updatedAt;
    let won = false;
    // The store may run this more than once (Redis retries on a conflicting write): only the last
    // run was stored, so `won` must be what that run decided, or two replicas could both send.
    const taken = await this.opts.store.update(merchant.id, request.referenceId, (current) => {
      // A claim still marked as sending is taken over only when its process is gone (stale).
      won = current.status === 'UNKNOWN' && current.updatedAt === since && (!current.sending || this.isStale(current));
      return won ? this.scheduleNext({ ...current, sending: true, updatedAt: this.now().toISOString() }) : undefined;
    });
    if (!won || !taken) {
      // Someone else moved first: report what they settled, or let the client ask again; never loop here.
      const now = await this.opts.store.get(merchant.id, request.referenceId);
      if (now && !now.sending && now.status !== 'UNKNOWN') return now;
      throw outcomeUnknown(request.referenceId);
    }
    return this.send(merchant, request, taken, true);
  }

  private async send(merchant: Merchant, request: DisbursementRequest, claim: Disbursement, resend = false): Promise<Disbursement> {
    const { referenceId } = request;
    let answer: ProviderRecord;
    try {
      answer = await this.opts.provider.create(merchant, request);
    } catch (error) {
      return this.afterFailedSend(merchant, request, claim, error, resend);
    }
    try {
      return await this.settleClaim(merchant.id, referenceId, answer, 'CREATE');
    } catch {
      // The provider has the payout but it could not be recorded: the claim stays "sending",
      // and the reconciler finds it as a stale claim once the store answers again.
      throw outcomeUnknown(referenceId);
    }
  }

  private async afterFailedSend(
    merchant: Merchant,
    request: DisbursementRequest,
    claim: Disbursement,
    error: unknown,
    resend: boolean,
  ): Promise<Disbursement> {
    const { referenceId } = request;
    if (error instanceof ProviderError && error.kind === 'server-error') return this.afterServerError(merchant, request, claim, error);
    const definite = error instanceof ProviderError && error.kind !== 'unknown' && !(resend && error.kind === 'rejected');
    if (!definite) {
      // A resend rejected as a duplicate means an earlier attempt did reach the provider.
      await this.markUnknown(merchant.id, referenceId, error instanceof Error ? error.message : 'the provider call failed').catch(
        () => undefined,
      );
      throw outcomeUnknown(referenceId);
    }
    await this.releaseClaim(claim).catch(() => undefined);
    throw toGatewayError(error, referenceId);
  }

  /** A 5xx came after the request arrived: only the provider's own record can say whether it was created. */
  private async afterServerError(
    merchant: Merchant,
    request: DisbursementRequest,
    claim: Disbursement,
    error: ProviderError,
  ): Promise<Disbursement> {
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.opts.provider.checkStatus(merchant, request.referenceId);
    } catch {
      await this.markUnknown(merchant.id, request.referenceId, error.message).catch(() => undefined);
      throw outcomeUnknown(request.referenceId);
    }
    if (answer)
      return this.settleClaim(merchant.id, request.referenceId, answer, 'STATUS_CHECK').catch(() =>
        Promise.reject(outcomeUnknown(request.referenceId)),
      );
    await this.releaseClaim(claim).catch(() => undefined);
    throw new GatewayError('UPSTREAM_UNAVAILABLE', 'The payout provider failed and did not create the payout; it is safe to retry.', {
      referenceId: request.referenceId,
    });
  }

  /** The provider's answer to our create (or its record after a 5xx): the claim is no longer in flight. */
  private async settleClaim(merchantId: string, referenceId: string, answer: ProviderRecord, source: EventSource): Promise<Disbursement> {
    const stored = await this.transition(merchantId, referenceId, (current) => {
      const next = applyStatusUpdate(current, { record: answer, source, at: this.now().toISOString() }) ?? current;
      return this.rescheduled(current, { ...next, sending: false });
    });
    if (!stored) throw outcomeUnknown(referenceId);
    return stored;
  }

  private async markUnknown(merchantId: string, referenceId: string, reason: string): Promise<void> {
    const at = this.now().toISOString();
    await this.transition(merchantId, referenceId, (current) =>
      this.rescheduled(current, {
        ...current,
        sending: false,
        updatedAt: at,
        version: current.version + 1,
        history:
          current.status === 'UNKNOWN'
            ? [...current.history, { status: 'UNKNOWN', message: `Outcome unknown: ${reason}`, source: 'CREATE', at }]
            : current.history,
      }),
    );
  }

  private releaseClaim(claim: Disbursement): Promise<void> {
    return this.opts.store.remove(
      claim.merchantId,
      claim.referenceId,
      (current) => current.sending && current.fingerprint === claim.fingerprint,
    );
  }
}

const NEVER_RECEIVED = 'The provider has no record of this payout: it was never received. Retry the same request to send it.';

function conflict(existing: DisbursementRequest, request: DisbursementRequest): GatewayError {
  const fields = differingFields(existing, request);
  return new GatewayError(
    'REFERENCE_CONFLICT',
    `referenceId ${request.referenceId} was already used for a different payout (differs in: ${fields.join(', ')})`,
    { fields: fields.map((f) => `input.${f}`), referenceId: request.referenceId },
  );
}

function storeUnavailable(referenceId: string): GatewayError {
  return new GatewayError(
    'SERVICE_UNAVAILABLE',
    'The gateway cannot record payouts right now (its store is unreachable); nothing was sent. Retry later.',
    {
      referenceId,
    },
  );
}

function outcomeUnknown(referenceId: string): GatewayError {
  return new GatewayError(
    'OUTCOME_UNKNOWN',
    'The provider may have received this payout but gave no usable answer. It is kept as UNKNOWN and reconciled; retry with the same referenceId to learn its state, never with a new one.',
    { referenceId },
  );
}

function toGatewayError(error: unknown, referenceId: string): GatewayError {
  if (!(error instanceof ProviderError))
    return new GatewayError('UPSTREAM_UNAVAILABLE', 'The payout provider could not be reached.', { referenceId });
  switch (error.kind) {
    case 'rejected':
      return new GatewayError('BAD_USER_INPUT', `The provider rejected the request: ${error.message}`, {
        referenceId,
        fields: error.details.field ? [`input.${error.details.field}`] : undefined,
      });
    case 'auth':
      return new GatewayError(
        'UPSTREAM_AUTH_FAILED',
        "The payout provider refused the gateway's merchant credentials; the operator has been alerted.",
        { referenceId },
      );
    case 'rate-limited':
      return new GatewayError('RATE_LIMITED', 'The payout provider is rate limiting this merchant; retry later.', {
        referenceId,
        retryAfter: error.details.retryAfter,
      });
    case 'unknown':
      return outcomeUnknown(referenceId);
    case 'unavailable':
    case 'server-error':
      return new GatewayError('UPSTREAM_UNAVAILABLE', 'The payout provider is unavailable; nothing was sent. Retry later.', {
        referenceId,
      });
  }
}
