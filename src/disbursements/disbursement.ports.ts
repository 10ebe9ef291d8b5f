import { AuditCheckpoint } from './audit.keys';
import {
  Disbursement,
  DisbursementChannel,
  DisbursementRequest,
  DisbursementStatus,
  ProviderBalance,
  ProviderRecord,
} from './disbursement.model';
import { AuditAction, AuditDraft, AuditEntry } from './audit.entry';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from './beneficiary.model';
import { LimitRefusal, PayoutControls, ReservationCaps } from './payout.controls';

/** The work waiting for its time, of the merchants served, for the metrics. */
/** Payouts one client read names at most: `disbursements(referenceIds:)`'s ids, `_entities`'s representations. */
export const MAX_REFERENCE_IDS = 100;

export interface WaitingWork {
  /** Payouts SCHEDULED for their sendAt, and the earliest of those (ms; undefined when none waits). */
  scheduled: number;
  earliestScheduledAt?: number;
  /** Payouts the gateway sends on its own decision whose outcome is unknown: it sends them again if never received. */
  resends: number;
  /** Payouts due now of merchants not served (removed from the configuration): left as they are, blocking no one. */
  unserved: number;
}

/** A merchant as the domain needs it: its id, the key the provider knows it by, and its payout controls. */
export interface Merchant {
  id: string;
  apiKey: string;
  controls?: PayoutControls;
}

/**
 * How a provider call failed, by what it means for the money:
 * - `rejected`, `auth`, `rate-limited`, `unavailable`: the provider created nothing;
 * - `server-error`: it answered 5xx after receiving the request, so it may have (or may still):
 *   an unknown outcome unless check-status shows the payout;
 * - `unknown`: the request may have left and no usable answer came back.
 */
export type ProviderFailureKind = 'rejected' | 'auth' | 'rate-limited' | 'unavailable' | 'server-error' | 'unknown';

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    readonly details: { status?: number; retryAfter?: number; field?: string } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * Why a status check is made, so the provider budget can tell a create's own checks (which share the
 * creates' room) from reads that anyone may trigger: a client's refresh, the gateway's own checks
 * (`'reconcile'`: the status rechecker and reconciliation runs; the value is a metrics label, so it
 * keeps its old name), a callback to confirm, or a callback for a payout the gateway has no record of.
 */
export type CheckPurpose = 'create' | 'refresh' | 'reconcile' | 'callback' | 'unknown-reference';

export interface ProviderPort {
  /**
   * Sends a create; never retried by the implementation. Throws ProviderError, or StoreUnavailableError
   * only before anything left (the gateway's own store, where the provider budget is kept, is away).
   */
  create(merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord>;
  /** The provider's current record, or undefined when it never saw the referenceId. Throws ProviderError (or StoreUnavailableError, as create). The domain always says why it asks. */
  checkStatus(merchant: Merchant, referenceId: string, purpose?: CheckPurpose): Promise<ProviderRecord | undefined>;
  /** The merchant's wallet balance. Throws ProviderError (never `server-error` or `unknown`: a read changes nothing). */
  balance(merchant: Merchant): Promise<ProviderBalance>;
}

/** The store cannot be reached; implementations throw this so callers can say what it means. */
export class StoreUnavailableError extends Error {
  constructor(message = 'the disbursement store is unreachable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** One entry of a merchant's change log: where it sits (1, 2, 3, ... per merchant) and the record as that change left it. */
export interface LoggedChange {
  position: string;
  record: Disbursement;
}

/** The position before every change. */
export const START_POSITION = '0';

/**
 * The audit entries a write of `before` into `after` records, written in the same atomic step as the
 * write (none when the write does not happen). Called with each run of `change` (DisbursementStore.update).
 */
export type AuditRule = (before: Disbursement, after: Disbursement) => readonly AuditDraft[];

/**
 * The system of record. Every write may carry audit entries, appended to the merchant's audit chain
 * (audit.entry.ts) in the same atomic step as the write they record. A write that changes what a
 * client sees (the record's `version` moved, or a new record is a client's payout at once:
 * `shownOnInsert`) is appended to its merchant's change log in the same atomic step, and every
 * process's DisbursementEvents hear of it once committed: a change is published exactly when it is
 * logged, and never lost between the two.
 */
export interface DisbursementStore {
  get(merchantId: string, referenceId: string): Promise<Disbursement | undefined>;
  /**
   * The record as this process last wrote or read it when it still remembers it (no request), else
   * as stored. It may be behind what is stored: for what never changes on a payout (its beneficiary,
   * its amount asked), never for a decision, which a change makes on the record as stored.
   */
  known(merchantId: string, referenceId: string): Promise<Disbursement | undefined>;
  /** One read for many ids, in the order asked. */
  getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]>;
  /**
   * Stores the record (and `audit`) unless one exists under its key; returns the existing one, or
   * undefined when stored. Atomic. Throws StoreUnavailableError and stores nothing.
   */
  insertIfAbsent(record: Disbursement, audit?: readonly AuditDraft[]): Promise<Disbursement | undefined>;
  /**
   * insertIfAbsent for a record carrying a `reservation`, and the daily-limit check in the same atomic
   * step: an existing record is returned as by insertIfAbsent; else when the reservation would take the
   * merchant's day total (its currency) past `caps.dailyMinor`, or the actor's past `caps.userMinor`,
   * nothing is stored and the refusal is returned; else both counters grow by it and the record is stored.
   * Every write that makes a reserved record FAILED or CANCELLED, and every removal of one, gives the
   * amount back in the same atomic step (see `releasing` in payout.controls.ts).
   */
  insertReserving(
    record: Disbursement,
    caps: ReservationCaps,
    audit?: readonly AuditDraft[],
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }>;
  /** Minor units held on a day in a currency: by the merchant's payouts, and by one actor's. */
  reserved(
    merchantId: string,
    day: string,
    currency: string,
    actorId: string,
  ): Promise<{ merchant: number; actor: number }>;
  /**
   * Atomic read-modify-write of one record. `change` returns the next record, or undefined to leave it.
   * Resolves to the record as stored afterwards (undefined when there is none).
   *
   * The store may run `change` more than once (a write that lost a race is retried on the record as
   * it now is), and only the last run is stored: a caller that keeps what `change` decided (in a
   * variable it sets) must keep the last run's, so `change` sets it on every run, never only once.
   * This holds for every caller, through RecordWriter.change too.
   */
  update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
    audit?: AuditRule,
  ): Promise<Disbursement | undefined>;
  /** Removes the record when `expected` still holds for it (a claim the provider never acted on), with `audit`'s entries. */
  remove(
    merchantId: string,
    referenceId: string,
    expected: (current: Disbursement) => boolean,
    audit?: (current: Disbursement) => readonly AuditDraft[],
  ): Promise<void>;
  /** Entries that record no write of a payout: a refusal before anything was stored, an export. */
  appendAudit(merchantId: string, entries: readonly AuditDraft[]): Promise<void>;
  /**
   * Up to `limit` records, of the merchants given (of any, without), whose `due.at` is at or before
   * `now` and that no replica holds (`leasedUntil` unset or past), earliest due first. The store
   * indexes `due.at` on every write, so this never scans settled records; rows of a merchant not given
   * are passed over in the query, so they can hold up no other merchant's work.
   */
  due(now: Date, limit: number, merchantIds?: readonly string[]): Promise<Disbursement[]>;
  /**
   * Up to `limit` payouts of any merchant that the gateway has yet to send on a decision (held,
   * scheduled, or sent with an unknown outcome), in key order after `after`.
   */
  unsent(after: { merchantId: string; referenceId: string } | undefined, limit: number): Promise<Disbursement[]>;
  /** The work waiting of the merchants given, and how much is due of any other merchant (for the metrics). */
  waitingWork(now: Date, merchantIds: readonly string[]): Promise<WaitingWork>;
  /**
   * A page of one merchant's payouts matching the filter, newest first by when each was first
   * stored (the `updatedAt` of the record `insertIfAbsent` stored), and how many match in all.
   */
  history(merchantId: string, query: HistoryQuery): Promise<HistoryPage>;
  /**
   * The merchant's change log, in the order the store applied the changes, kept
   * `EVENT_RETENTION_SECONDS`. Up to `limit` changes strictly after `position` (any position, kept
   * or not), oldest first.
   */
  changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]>;
  /** Whether the change at `position` is still kept (false once it is older than the retention). */
  hasChange(merchantId: string, position: string): Promise<boolean>;
  /** The position of the merchant's latest change (kept or since pruned), or `START_POSITION` before its first. */
  latestChange(merchantId: string): Promise<string>;
  /**
   * Requests the store has sent to the database so far, reads and writes alike. On PostgreSQL each
   * round trip is one: every statement, each in autocommit (the store opens no transaction; taking
   * an idle pooled connection is none). SQLite, with no round trips, counts each read call and each
   * write (its savepoint in a group commit) as one. A batched read (`getMany`) is one.
   */
  readonly databaseCalls: number;
  /** Whether the store answers; false while its backing service is unreachable. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** Told once a watcher hears every change published from then on, on any replica: its subscription is live. */
export type OnListening = () => void;

/** Each change the store logged, heard by the watchers of every process, wherever it was written. */
export interface DisbursementEvents {
  healthy(): Promise<boolean>;
  close(): Promise<void>;
  /** Changes of one payout of a merchant. Listening starts with the iterator's first `next()`. */
  watch(merchantId: string, referenceId: string): AsyncIterable<Disbursement>;
  /**
   * Resolves once a change of that payout published anywhere (any replica) reaches this process's
   * watchers that have started listening; call it after the first `next()`, before reading the store.
   */
  listening(merchantId: string, referenceId: string): Promise<void>;
  /** Every change of a merchant's payouts. */
  watchMerchant(merchantId: string): AsyncIterable<Disbursement>;
  /** As `listening`, for `watchMerchant`: resolves once that watcher hears changes published anywhere. */
  merchantListening(merchantId: string): Promise<void>;
}

/**
 * Where a payout sits in its merchant's history: when the gateway first recorded it (the claim,
 * in ms) and its referenceId. Newest first; the referenceId orders payouts of the same millisecond.
 * It never changes, so a cursor stays valid however many payouts arrive after it.
 */
export interface HistoryPosition {
  at: number;
  referenceId: string;
}

export interface HistoryFilter {
  statuses?: readonly DisbursementStatus[];
  channel?: DisbursementChannel;
  /** Inclusive bounds on the position's time, in ms. */
  createdFrom?: number;
  createdTo?: number;
  referenceIdPrefix?: string;
}

export interface HistoryQuery {
  /** Only payouts older than this position (the cursor of the last one seen). */
  after?: HistoryPosition;
  limit: number;
  filter: HistoryFilter;
}

export interface HistoryEntry extends HistoryPosition {
  record: Disbursement;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  hasMore: boolean;
  /** Where to go on from: the last entry. */
  endPosition?: HistoryPosition;
  /** The merchant's payouts matching the filter. */
  totalCount: number;
}

export interface AuditFilter {
  referenceId?: string;
  actor?: string;
  actions?: readonly AuditAction[];
  /** Inclusive bounds on `at` (ISO). */
  from?: string;
  to?: string;
}

export interface AuditQuery {
  /** Only entries after this sequence (the cursor of the last one seen). */
  after?: number;
  limit: number;
  filter: AuditFilter;
}

export interface AuditPage {
  /** Oldest first. */
  entries: AuditEntry[];
  hasMore: boolean;
}

/** A merchant's payouts created in a window, counted and summed per currency and status. */
export interface StatementLine {
  currency: string;
  status: DisbursementStatus;
  count: number;
  /** The exact sum, in minor units (cents). */
  amountMinor: number;
}

/** What finance reads: the audit chain, statements and exports. Never across merchants. */
/** A merchant's chain head as its head row records it. */
export interface MerchantChainHead {
  merchantId: string;
  sequence: number;
  hash: string;
}

/** Signed chain heads, kept beside the trail (append-only, like it). */
export interface AuditCheckpointStore {
  /** Each merchant's head that no checkpoint signs yet (its sequence is past the last one signed). */
  unsignedHeads(): Promise<MerchantChainHead[]>;
  /** Keeps them; one already kept for that merchant and sequence (another replica signed it) stays. */
  addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void>;
}

export interface RecordsReader {
  auditPage(merchantId: string, query: AuditQuery): Promise<AuditPage>;
  /** The merchant's newest `limit` signed checkpoints, newest first. */
  latestCheckpoints(merchantId: string, limit: number): Promise<AuditCheckpoint[]>;
  /** Where the merchant's chain ends, as its head row records it (undefined: no entry yet). */
  auditHead(merchantId: string): Promise<{ sequence: number; hash: string } | undefined>;
  /** Payouts created at or after `from` and before `to` (ms). */
  statement(merchantId: string, from: number, to: number): Promise<StatementLine[]>;
  /**
   * Up to `limit` payouts created at or after `from` and before `to` (ms), oldest first, strictly
   * after `after` (the last one of the previous page): an export reads page by page, in constant memory.
   */
  createdBetween(
    merchantId: string,
    window: { from: number; to: number },
    after: HistoryPosition | undefined,
    limit: number,
  ): Promise<HistoryEntry[]>;
  /** Up to `limit` payouts written at or after `since` (ms), in the order of `createdBetween`, after `after`. */
  writtenSince(
    merchantId: string,
    since: number,
    after: HistoryPosition | undefined,
    limit: number,
  ): Promise<HistoryEntry[]>;
}

/** What a beneficiary write stores: the record and the audit entries recording it. */
export interface BeneficiaryWrite {
  beneficiary: Beneficiary;
  audit: readonly AuditDraft[];
}

/**
 * The merchants' beneficiary books. Every write stores its audit entries in the merchant's chain in
 * the same atomic step, and refuses (returning it, storing nothing) when another beneficiary of the
 * merchant not ARCHIVED has the same account key (beneficiary.model.ts accountKey).
 */
export interface BeneficiaryStore {
  beneficiary(merchantId: string, id: string): Promise<Beneficiary | undefined>;
  /** Stores a new one; returns the active duplicate instead when there is one. */
  insertBeneficiary(write: BeneficiaryWrite): Promise<{ duplicate?: Beneficiary }>;
  /**
   * Atomic read-modify-write: `change` gets the stored beneficiary (never another's) and returns the
   * write, or undefined to leave it; it may throw to refuse. Resolves to the stored one afterwards
   * (undefined when there is none), or the duplicate that refused the write.
   */
  updateBeneficiary(
    merchantId: string,
    id: string,
    change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  ): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }>;
  /** A page of the merchant's book, oldest first, and how many match in all. */
  beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage>;
}
