import type { HistoryPage, HistoryQuery } from './disbursement.history';
import { Disbursement, DisbursementRequest, ProviderBalance, ProviderRecord } from './disbursement.model';

/** A merchant as the domain needs it: its id and the key the provider knows it by. */
export interface Merchant {
  id: string;
  apiKey: string;
}

/**
 * How a provider call failed, by what it means for the money:
 * - `rejected`, `auth`, `rate-limited`, `unavailable`: the provider created nothing;
 * - `server-error`: it answered 5xx after receiving the request, so it may have;
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

export interface ProviderPort {
  /** Sends a create; never retried by the implementation. Throws ProviderError. */
  create(merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord>;
  /** The provider's current record, or undefined when it never saw the referenceId. Throws ProviderError. */
  checkStatus(merchant: Merchant, referenceId: string): Promise<ProviderRecord | undefined>;
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

/**
 * The store holds as many records as it may and none of them is final: a new payout is refused
 * (nothing is sent) rather than let memory grow. A kind of unavailability, so callers treat it alike.
 */
export class StoreFullError extends StoreUnavailableError {
  constructor(limit: number) {
    super(`the disbursement store is full: ${limit} records, none of them final`);
    this.name = 'StoreFullError';
  }
}

export interface DisbursementStore {
  get(merchantId: string, referenceId: string): Promise<Disbursement | undefined>;
  /** One read for many ids, in the order asked. */
  getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]>;
  /**
   * Stores the record unless one exists under its key; returns the existing one, or undefined when stored. Atomic.
   * Throws StoreUnavailableError (StoreFullError when a bounded store has no room) and stores nothing.
   */
  insertIfAbsent(record: Disbursement): Promise<Disbursement | undefined>;
  /**
   * Atomic read-modify-write of one record. `change` returns the next record, or undefined to leave it.
   * Resolves to the record as stored afterwards (undefined when there is none).
   */
  update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<Disbursement | undefined>;
  /** Removes the record when `expected` still holds for it (a claim the provider never acted on). */
  remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void>;
  /**
   * Up to `limit` records, of any merchant, whose `nextCheckAt` is at or before `now`, earliest first.
   * The store indexes `nextCheckAt` on every write, so this never scans settled records.
   */
  due(now: Date, limit: number): Promise<Disbursement[]>;
  /**
   * A page of one merchant's payouts, newest first by when each was first stored (the
   * `updatedAt` of the record `insertIfAbsent` stored), from a per-merchant index that every
   * insert and removal keeps in step with the records; expired records leave it. Build it
   * with `scanHistory`. `totalCount` is given when counting needs no record reads.
   */
  history(merchantId: string, query: HistoryQuery): Promise<HistoryPage>;
  /** Store round trips so far, for metrics and to show batching. */
  readonly reads: number;
  /** Whether the store answers; false while its backing service is unreachable. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** Publishes each change of a record to its subscribers, wherever they are connected. */
export interface DisbursementEvents {
  publish(record: Disbursement): Promise<void>;
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
}
