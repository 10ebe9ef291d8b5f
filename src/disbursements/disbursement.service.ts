import { DomainContext } from './disbursement.context';
import { CreateDisbursement } from './disbursement.create';
import { Disbursement, DisbursementRequest, ProviderRecord } from './disbursement.model';
import { DisbursementEvents, DisbursementStore, Merchant, ProviderPort } from './disbursement.ports';
import { reconcileStep } from './disbursement.reconciler';
import { ReconcilePolicy } from './disbursement.schedule';
import { CallbackDelivery, CallbackOutcome, StatusUpdateOptions, StatusUpdates } from './disbursement.update';
import { watchDisbursement } from './disbursement.watch';
import { RecordWriter } from './disbursement.writer';

export interface DisbursementServiceOptions extends StatusUpdateOptions {
  store: DisbursementStore;
  events: DisbursementEvents;
  provider: ProviderPort;
  /** How long a create may take at the provider; a claim older than twice this is no longer in flight. */
  upstreamTimeoutMs: number;
  /** How often a request waiting on another replica's in-flight create looks again. */
  claimPollMs?: number;
  reconcile: Omit<ReconcilePolicy, 'staleClaimMs'>;
  /** Called once when a payout reaches a final status (metrics, relay to the client's own callbackUrl). */
  onFinal?: (record: Disbursement) => void;
  now?: () => Date;
}

/**
 * The domain's entry points for the edges, each handed to its use case: creates
 * (disbursement.create.ts), status updates (disbursement.update.ts), the reconciler's step
 * (disbursement.reconciler.ts) and live status (disbursement.watch.ts).
 */
export class DisbursementService {
  private readonly ctx: DomainContext;
  private readonly creates: CreateDisbursement;
  private readonly updates: StatusUpdates;

  constructor(opts: DisbursementServiceOptions) {
    this.ctx = {
      store: opts.store,
      events: opts.events,
      provider: opts.provider,
      writer: new RecordWriter(opts.store, opts.events, opts.onFinal),
      policy: { ...opts.reconcile, staleClaimMs: opts.upstreamTimeoutMs * 2 },
      now: opts.now ?? (() => new Date()),
    };
    this.creates = new CreateDisbursement(this.ctx, opts.claimPollMs);
    this.updates = new StatusUpdates(this.ctx, opts);
  }

  getMany(merchant: Merchant, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    return this.ctx.store.getMany(merchant.id, referenceIds);
  }

  create(merchant: Merchant, request: DisbursementRequest, requestId?: string): Promise<Disbursement> {
    return this.creates.run(merchant, request, requestId);
  }

  refresh(merchant: Merchant, referenceId: string): Promise<Disbursement | undefined> {
    return this.updates.refresh(merchant, referenceId);
  }

  applyCallback(merchant: Merchant, record: ProviderRecord, delivery: CallbackDelivery): Promise<CallbackOutcome> {
    return this.updates.applyCallback(merchant, record, delivery);
  }

  reconcile(merchant: Merchant, record: Disbursement): Promise<Disbursement | undefined> {
    return reconcileStep(this.ctx, merchant, record);
  }

  watch(merchant: Merchant, referenceId: string): AsyncIterableIterator<Disbursement> {
    return watchDisbursement(this.ctx.store, this.ctx.events, merchant.id, referenceId);
  }

  /** Every change of a merchant's payouts, as it happens. */
  watchMerchant(merchant: Merchant): AsyncIterable<Disbursement> {
    return this.ctx.events.watchMerchant(merchant.id);
  }

  /** Shutdown: creates in flight get `graceMs` to finish, then are answered OUTCOME_UNKNOWN. */
  drain(graceMs: number): Promise<void> {
    return this.creates.drain(graceMs);
  }
}
