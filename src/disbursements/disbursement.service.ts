import { BatchItem, BatchResult, DisbursementBatches } from './disbursement.batch';
import { SharedChangeReads } from './change-log.reads';
import { Change, watchChanges } from './change-log.feed';
import { DomainContext } from './disbursement.context';
import { CreateDisbursement } from './disbursement.create';
import { Disbursement, DisbursementRequest, ProviderRecord } from './disbursement.model';
import { DisbursementHistory, HistoryRequest } from './disbursement.history';
import {
  DisbursementEvents,
  DisbursementStore,
  HistoryPage,
  Merchant,
  OnListening,
  ProviderPort,
} from './disbursement.ports';
import { recheckStep } from './disbursement.rechecker';
import { leased, CheckPolicy, unhandled } from './disbursement.checks';
import { withRelayAttempt } from './disbursement.record';
import { CallbackDelivery, CallbackOutcome, StatusUpdateOptions, StatusUpdates } from './provider-status.apply';
import { watchMerchantUpdates } from './merchant.watch';
import { watchDisbursement } from './disbursement.watch';
import { RecordWriter } from './disbursement.writer';
import { WalletBalance, WalletBalances } from './wallet.balance';
import { approveDisbursement } from './disbursement.approve';
import { cancelDisbursement } from './disbursement.cancel';
import { expireStep } from './disbursement.expire';
import { sendDueStep } from './disbursement.send-due';
import { rejectDisbursement } from './disbursement.reject';
import { Allowance, payoutAllowance } from './payout.allowance';
import { Actor, ANONYMOUS, ControlEvent } from './payout.controls';
import { auditCheckpoints } from './audit.checkpoint-list';
import { AuditCheckpoint, AuditKeyRing } from './audit.keys';
import { sealKeysOf } from './payout.seal';
import { Resealed, resealUnsent } from './payout.reseal';
import { TrailVerification, verifyTrail } from './audit.verification';
import { AuditRequest, auditTrail } from './audit.trail';
import { AuditPage, HistoryEntry, RecordsReader } from './disbursement.ports';
import { exportPayouts } from './payout.export';
import { MerchantChanges, recordMerchantsReload } from './merchants.reload';
import { payoutStatement, PayoutStatementLine, StatementWindow } from './payout.statement';
import { Discrepancy, ReconciliationRun, ReconciliationStore } from './reconciliation.model';
import { ReconciliationParts, startReconciliation } from './reconciliation.run';
import { BeneficiaryContext, createBeneficiary } from './beneficiary.create';
import { updateBeneficiary } from './beneficiary.update';
import { approveBeneficiary } from './beneficiary.approve';
import { Archived, archiveBeneficiary } from './beneficiary.archive';
import { BeneficiaryPayment, payBeneficiary } from './beneficiary.pay';
import { Beneficiary, BeneficiaryDraft, BeneficiaryPage, BeneficiaryQuery } from './beneficiary.model';
import { BeneficiaryStore } from './disbursement.ports';

export interface DisbursementServiceOptions extends StatusUpdateOptions {
  store: DisbursementStore;
  /** The audit chain, statements and exports: the store, read for finance. */
  records: RecordsReader;
  /** The gateway's own keys: they check the audit chain on demand and seal each payout's request. */
  /** AUDIT_SIGNING_KEY's keys, the one in use first. */
  auditKeys: AuditKeyRing;
  runs: ReconciliationStore;
  /** The merchants' beneficiary books (beneficiary.*.ts). */
  book: BeneficiaryStore;
  events: DisbursementEvents;
  provider: ProviderPort;
  /** How long a create may take at the provider; a claim older than twice this is no longer in flight. */
  upstreamTimeoutMs: number;
  /** RESEND_AFTER_SECONDS in ms: how long after a send a provider "not found" is still not trusted. */
  resendAfterMs: number;
  /** The latest moment the database went back in time (ms), if it ever did. */
  rewoundAt?: () => number | undefined;
  /** How often a request waiting on another replica's in-flight create looks again. */
  claimPollMs?: number;
  recheck: Omit<CheckPolicy, 'staleClaimMs' | 'resendAfterMs' | 'scheduleLateLimitMs' | 'scheduleMaxAheadMs'>;
  /** SCHEDULE_LATE_LIMIT_SECONDS in ms: how late a scheduled payout may still be sent. Default one day. */
  scheduleLateLimitMs?: number;
  /** SCHEDULE_MAX_AHEAD_DAYS in ms: how far ahead a new payout's sendAt may be. Default 366 days. */
  scheduleMaxAheadMs?: number;
  /** How long one wallet balance answer is served per merchant (0: ask every time). Default 5000. */
  walletBalanceCacheMs?: number;
  /**
   * Called once when a payout reaches a final status, after that write committed (metrics, waking the
   * relay worker). Nothing durable waits on it: the write queued the payout's relay itself.
   */
  onFinal?: (record: Disbursement) => void;
  /** The IANA zone whose calendar day the daily limits count; default UTC. */
  payoutDayTimeZone?: string;
  /** Told of every payout-control action, for its log line and metric. */
  onControl?: (event: ControlEvent) => void;
  now?: () => Date;
  /** The trace context of the work under way (W3C traceparent), kept with each new record so its callbacks can link to it. */
  traceparent?: () => string | undefined;
}

/**
 * The one entry to the domain for the edges (GraphQL, the callback receiver, the rechecker), each
 * method handed to its use case: creates (disbursement.create.ts), batches (disbursement.batch.ts),
 * status updates (provider-status.apply.ts), the due loop's steps (disbursement.due-loop.ts), live
 * status (disbursement.watch.ts), history (disbursement.history.ts) and the wallet (wallet.balance.ts).
 */
export class DisbursementService {
  private readonly ctx: DomainContext;
  private readonly creates: CreateDisbursement;
  private readonly updates: StatusUpdates;
  private readonly batches: DisbursementBatches;
  private readonly histories: DisbursementHistory;
  private readonly wallets: WalletBalances;
  private readonly sharedReads: SharedChangeReads;
  /** What reconciliation runs work with (also handed to the ReconciliationStepper). */
  readonly reconciliation: ReconciliationParts;
  private readonly auditKeys: AuditKeyRing;
  private readonly beneficiaryCtx: BeneficiaryContext;

  constructor(opts: DisbursementServiceOptions) {
    this.auditKeys = opts.auditKeys;
    this.ctx = {
      store: opts.store,
      events: opts.events,
      provider: opts.provider,
      writer: new RecordWriter(opts.store, opts.onFinal),
      policy: {
        ...opts.recheck,
        staleClaimMs: opts.upstreamTimeoutMs * 2,
        resendAfterMs: opts.resendAfterMs,
        scheduleLateLimitMs: opts.scheduleLateLimitMs ?? 86_400_000,
        scheduleMaxAheadMs: opts.scheduleMaxAheadMs ?? 366 * 86_400_000,
      },
      now: opts.now ?? (() => new Date()),
      dayTimeZone: opts.payoutDayTimeZone ?? 'UTC',
      onControl: opts.onControl ?? (() => undefined),
      traceparent: opts.traceparent,
      rewoundAt: opts.rewoundAt,
      sealKeys: sealKeysOf(opts.auditKeys),
      entryKeys: opts.auditKeys,
      records: opts.records,
      book: opts.book,
    };
    this.creates = new CreateDisbursement(this.ctx, opts.claimPollMs);
    this.updates = new StatusUpdates(this.ctx, opts);
    this.batches = new DisbursementBatches({
      create: (merchant, request, requestId, actor) => this.create(merchant, request, requestId, actor),
      pay: (merchant, payment, requestId, actor) => this.payBeneficiary(merchant, payment, requestId, actor),
      getMany: (merchant, referenceIds) => this.getMany(merchant, referenceIds),
    });
    this.histories = new DisbursementHistory(opts.store, this.ctx.sealKeys);
    this.wallets = new WalletBalances({
      provider: opts.provider,
      ttlMs: opts.walletBalanceCacheMs,
      now: () => this.ctx.now().getTime(),
    });
    this.sharedReads = new SharedChangeReads(opts.store);
    this.reconciliation = { ctx: this.ctx, runs: opts.runs, records: opts.records };
    this.beneficiaryCtx = { book: opts.book, now: this.ctx.now };
  }

  createBeneficiary(merchant: Merchant, draft: BeneficiaryDraft, actor: Actor): Promise<Beneficiary> {
    return createBeneficiary(this.beneficiaryCtx, merchant, draft, actor);
  }

  updateBeneficiary(merchant: Merchant, id: string, draft: BeneficiaryDraft, actor: Actor): Promise<Beneficiary> {
    return updateBeneficiary(this.beneficiaryCtx, merchant, id, draft, actor);
  }

  approveBeneficiary(merchant: Merchant, id: string, actor: Actor, expectedDetails: string): Promise<Beneficiary> {
    return approveBeneficiary(this.beneficiaryCtx, merchant, id, actor, expectedDetails);
  }

  archiveBeneficiary(merchant: Merchant, id: string, actor: Actor): Promise<Archived> {
    const { store, writer } = this.ctx;
    return archiveBeneficiary({ ...this.beneficiaryCtx, store, writer }, merchant, id, actor);
  }

  beneficiary(merchant: Merchant, id: string): Promise<Beneficiary | undefined> {
    return this.beneficiaryCtx.book.beneficiary(merchant.id, id);
  }

  beneficiaries(merchant: Merchant, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return this.beneficiaryCtx.book.beneficiaries(merchant.id, query);
  }

  /** A payout to a beneficiary through the one create protocol (beneficiary.pay.ts). */
  payBeneficiary(
    merchant: Merchant,
    payment: BeneficiaryPayment,
    requestId: string | undefined,
    actor: Actor = ANONYMOUS,
  ): Promise<Disbursement> {
    return payBeneficiary(
      { ...this.beneficiaryCtx, store: this.ctx.store },
      this.creates,
      merchant,
      payment,
      requestId,
      actor,
    );
  }

  getMany(merchant: Merchant, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    return this.ctx.store.getMany(merchant.id, referenceIds);
  }

  /** `actor`: who asks (the payout controls' requester); default the anonymous caller of open access. */
  create(merchant: Merchant, request: DisbursementRequest, requestId?: string, actor?: Actor): Promise<Disbursement> {
    return this.creates.create(merchant, request, requestId, actor);
  }

  approve(merchant: Merchant, referenceId: string, actor: Actor): Promise<Disbursement> {
    return approveDisbursement(this.ctx, this.creates, merchant, referenceId, actor);
  }

  reject(merchant: Merchant, referenceId: string, actor: Actor, reason?: string): Promise<Disbursement> {
    return rejectDisbursement(this.ctx, merchant, referenceId, actor, reason);
  }

  /** `mayDecide`: the caller is an approver, who may cancel anyone's payout; else only their own. */
  cancel(merchant: Merchant, referenceId: string, actor: Actor, mayDecide: boolean): Promise<Disbursement> {
    return cancelDisbursement(this.ctx, merchant, referenceId, actor, mayDecide);
  }

  allowance(merchant: Merchant, actor: Actor): Promise<Allowance[]> {
    return payoutAllowance(this.ctx, merchant, actor);
  }

  /** Many creates in one call: one result per item, in order. */
  createMany(
    merchant: Merchant,
    items: readonly BatchItem[],
    requestId?: string,
    actor?: Actor,
  ): Promise<BatchResult[]> {
    return this.batches.createAll(merchant, items, requestId, actor);
  }

  history(merchant: Merchant, request: HistoryRequest): Promise<HistoryPage> {
    return this.histories.page(merchant, request);
  }

  walletBalance(merchant: Merchant): Promise<WalletBalance> {
    return this.wallets.get(merchant);
  }

  /** The merchant's audit chain, a page at a time (audit.trail.ts). */
  auditTrail(merchant: Merchant, request: AuditRequest): Promise<AuditPage> {
    return auditTrail(this.reconciliation.records, merchant, request);
  }

  /** The merchant's latest signed chain heads (audit.checkpoint-list.ts). */
  auditCheckpoints(merchant: Merchant): Promise<AuditCheckpoint[]> {
    return auditCheckpoints(this.reconciliation.records, merchant);
  }

  /** The merchant's whole chain checked with the gateway's keys (audit.verification.ts). */
  verifyAuditTrail(merchant: Merchant): Promise<TrailVerification> {
    return verifyTrail(this.reconciliation.records, this.auditKeys, merchant);
  }

  /** Counts and exact sums of the payouts created in a window (payout.statement.ts). */
  statement(merchant: Merchant, window: StatementWindow): Promise<PayoutStatementLine[]> {
    return payoutStatement(this.reconciliation.records, merchant, window);
  }

  /** The payouts created in a window, read a page at a time; the export is audited (payout.export.ts). */
  exportPayouts(merchant: Merchant, actor: Actor, window: StatementWindow): AsyncGenerator<HistoryEntry> {
    return exportPayouts(this.ctx, this.reconciliation.records, merchant, actor, window);
  }

  /** Starts a reconciliation run over a window (reconciliation.run.ts); the ReconciliationStepper moves it along. */
  /** Audits a reload of the merchants' configuration in the chain of each merchant it touched. */
  recordMerchantsReload(changes: MerchantChanges, operator: string): Promise<void> {
    return recordMerchantsReload(this.ctx, changes, operator);
  }

  startReconciliation(merchant: Merchant, window: StatementWindow): Promise<ReconciliationRun> {
    return startReconciliation(this.reconciliation, merchant, window);
  }

  /** A run of the merchant's and what it found so far; undefined for another merchant's run. */
  async reconciliationRun(
    merchant: Merchant,
    id: string,
  ): Promise<{ run: ReconciliationRun; discrepancies: Discrepancy[] } | undefined> {
    const run = await this.reconciliation.runs.get(merchant.id, id);
    return run && { run, discrepancies: await this.reconciliation.runs.discrepancies(run.id) };
  }

  refresh(merchant: Merchant, referenceId: string): Promise<Disbursement | undefined> {
    return this.updates.refresh(merchant, referenceId);
  }

  applyCallback(merchant: Merchant, record: ProviderRecord, delivery: CallbackDelivery): Promise<CallbackOutcome> {
    return this.updates.applyCallback(merchant, record, delivery);
  }

  /** Takes a due record for this replica until `until`; undefined when another replica took it first. */
  async lease(record: Disbursement, until: Date): Promise<Disbursement | undefined> {
    let taken = false;
    const { stored } = await this.ctx.writer.change(record.merchantId, record.referenceId, (current) => {
      const next = leased(current, record, until);
      taken = next !== undefined;
      return next;
    });
    return taken ? stored : undefined;
  }

  /** Notes one relay attempt on the record it relayed (relay bookkeeping; nothing a subscriber sees). */
  async noteRelayAttempt(
    merchantId: string,
    referenceId: string,
    relay: Parameters<typeof withRelayAttempt>[1],
  ): Promise<Disbursement | undefined> {
    return (await this.ctx.writer.change(merchantId, referenceId, (current) => withRelayAttempt(current, relay)))
      .stored;
  }

  /** After a rotation of the audit key: what is still to be sent is sealed under the key in use (payout.reseal.ts). */
  resealUnsent(): Promise<Resealed> {
    return resealUnsent(this.ctx);
  }

  /** Does what is due for a record the due loop leased, by its kind: every kind has its step. */
  async runDue(merchant: Merchant, record: Disbursement): Promise<Disbursement | undefined> {
    const kind = record.due?.kind;
    switch (kind) {
      case undefined:
        return record;
      case 'RECHECK':
        return recheckStep(this.ctx, merchant, record);
      case 'RESEND': {
        // Asked like any unknown outcome; confirmed never received, it is sent again in the same step.
        const checked = await recheckStep(this.ctx, merchant, record);
        return checked?.due?.kind === 'SEND' ? sendDueStep(this.ctx, this.creates, merchant, checked) : checked;
      }
      case 'APPROVAL_EXPIRY':
        return expireStep(this.ctx, merchant, record);
      case 'SEND':
        return sendDueStep(this.ctx, this.creates, merchant, record);
      default:
        return unhandled(kind);
    }
  }

  /** One payout's states (disbursement.watch.ts); `onListening` is told once the subscription is live. */
  watch(merchant: Merchant, referenceId: string, onListening?: OnListening): AsyncIterableIterator<Disbursement> {
    return watchDisbursement(this.ctx.store, this.ctx.events, merchant.id, referenceId, onListening);
  }

  /** Every change of a merchant's payouts, as it happens (merchant.watch.ts). */
  watchMerchant(merchant: Merchant, onListening?: OnListening): AsyncIterableIterator<Disbursement> {
    return watchMerchantUpdates(this.ctx.events, merchant.id, onListening);
  }

  /** Every change of a merchant's payouts with its cursor, after `after` when given (change-log.feed.ts). */
  changes(
    merchant: Merchant,
    after?: string | null,
    onListening?: OnListening,
  ): Promise<AsyncIterableIterator<Change>> {
    return watchChanges(this.ctx.store, this.sharedReads, this.ctx.events, merchant, after, onListening);
  }

  /** Shutdown: creates in flight get `graceMs` to finish, then are answered OUTCOME_UNKNOWN. */
  drain(graceMs: number): Promise<void> {
    return this.creates.drain(graceMs);
  }
}
