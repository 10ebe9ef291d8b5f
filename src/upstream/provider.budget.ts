import { createHash } from 'node:crypto';
import { DisbursementRequest, ProviderBalance, ProviderRecord } from '../disbursements/disbursement.model';
import {
  CheckPurpose,
  Merchant,
  ProviderError,
  ProviderPort,
  StoreUnavailableError,
} from '../disbursements/disbursement.ports';

/** What a bucket answered: taken, or how long until it could be (and whether a provider 429 pause is why). */
export type Take = { taken: true } | { taken: false; waitMs: number; paused: boolean };

/**
 * Where provider budgets are kept: in the database, the embedded file or PostgreSQL for every replica
 * at once (sqlite.budget.ts, postgres.budget.ts; the rule itself is budget.bucket.ts). A budget is two token buckets under
 * one key, refilled continuously: the shared bucket of all calls (`perMinute`, refilling `perMinute`
 * a minute) and the reads' own allowance (half of that, refilling at half the rate), plus the pause
 * a provider 429 set. A create takes from the shared bucket only; a read takes from both, so reads
 * spend at most half the bucket (and half the rate) while creates may spend all of it.
 */
export interface BudgetLedger {
  /** One token from the shared bucket of `key`; a read also needs one from its own allowance (half the bucket). */
  take(key: string, perMinute: number, read: boolean): Promise<Take>;
  /**
   * Two tokens from the shared bucket of `key` in one step: a send's check-status and the create
   * after it. The second is taken only when the first was, and only when there is one left.
   */
  takePair(key: string, perMinute: number): Promise<{ first: Take; second: boolean }>;
  /** Nothing may be taken from `key` for `ms` (a provider 429's Retry-After). */
  pause(key: string, ms: number): Promise<void>;
  /** True for the first caller in `ms` (per key, across replicas); false while an earlier claim holds. */
  claim(key: string, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

export type SpendPurpose = CheckPurpose | 'balance';

export interface BudgetOptions {
  ledger: BudgetLedger;
  /** The provider's base address: a key's budget is its budget at that provider. */
  providerUrl: string;
  /** UPSTREAM_RATE_LIMIT_PER_MIN: calls per provider key per minute; status checks get at most half. 0: no budget (pauses still hold). */
  perMinute: number;
  /** Checks a minute per merchant for callbacks naming a payout the gateway has no record of. */
  unknownReferencesPerMin?: number;
  /** Refreshes of one record reach the provider at most once in this long. */
  refreshEveryMs?: number;
  /** Told of every call let through (spent) and every one held back (refused), by merchant id and purpose. */
  onSpend?: (merchantId: string, purpose: SpendPurpose | 'create') => void;
  onRefuse?: (
    merchantId: string,
    purpose: SpendPurpose | 'create',
    reason: 'budget' | 'paused' | 'recently_checked',
  ) => void;
}

export const UNKNOWN_REFERENCES_PER_MIN = 5;
export const REFRESH_EVERY_MS = 3000;
/**
 * How long the create token a send's check-status took along stays this process's to spend: the
 * create follows its check at once (create.send.ts), or not at all (the provider had the payout).
 */
const PREPAID_MS = 10_000;

/** A provider key (at a provider) as a ledger key part: never the key itself. */
const keyId = (...parts: string[]) =>
  createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22);

/**
 * The provider's rate limit belongs to the merchant whose key it is, so the gateway spends it on
 * purpose: a token bucket per provider key shared by every replica; status checks (refreshes,
 * reconciliation, callbacks, unknown references, balance) may take at most half of it, so creates
 * always have room; a record's refreshes coalesce; callbacks for unknown payouts cost a few checks a
 * minute per merchant; and after a provider 429 nothing is sent for the key until Retry-After has
 * passed. What is held back never leaves: it fails as `rate-limited`, which means "nothing was sent".
 */
export class BudgetedProvider implements ProviderPort {
  /** Each merchant's budget key, hashed once (merchants are a fixed, configured set). */
  private readonly budgetKeys = new Map<string, string>();
  /**
   * Create tokens taken with a send's check-status (one ledger call for both), by budget key and
   * referenceId, until when each may be spent.
   */
  private readonly prepaid = new Map<string, number>();
  /** Pauses this process learnt from a provider 429, by budget key: a prepaid create waits for them too. */
  private readonly pausedUntil = new Map<string, number>();

  constructor(
    private readonly inner: ProviderPort,
    private readonly opts: BudgetOptions,
  ) {}

  async create(merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord> {
    if (this.spendPrepaid(merchant, request.referenceId)) this.opts.onSpend?.(merchant.id, 'create');
    else await this.spend(merchant, 'create', false);
    return this.watch429(merchant, this.inner.create(merchant, request));
  }

  async checkStatus(
    merchant: Merchant,
    referenceId: string,
    purpose: CheckPurpose = 'reconcile',
  ): Promise<ProviderRecord | undefined> {
    const { ledger } = this.opts;
    if (purpose === 'refresh') {
      const first = await this.ledgerCall(() =>
        ledger.claim(`r:${merchant.id}:${referenceId}`, this.opts.refreshEveryMs ?? REFRESH_EVERY_MS),
      );
      if (!first) this.refuse(merchant, purpose, 'recently_checked', 1000);
    }
    if (purpose === 'unknown-reference') {
      const perMin = this.opts.unknownReferencesPerMin ?? UNKNOWN_REFERENCES_PER_MIN;
      const take = await this.ledgerCall(() =>
        ledger.take(`o:${keyId(this.opts.providerUrl, merchant.id)}`, perMin, false),
      );
      if (!take.taken) this.refuse(merchant, purpose, 'budget', take.waitMs);
    }
    // A create's own checks share the creates' room: they decide whether a payout was made. The
    // check before a send takes the send's token along, so the send costs no ledger call of its own.
    if (purpose === 'create') await this.spendPair(merchant, referenceId);
    else await this.spend(merchant, purpose, true);
    return this.watch429(merchant, this.inner.checkStatus(merchant, referenceId, purpose));
  }

  async balance(merchant: Merchant): Promise<ProviderBalance> {
    await this.spend(merchant, 'balance', true);
    return this.watch429(merchant, this.inner.balance(merchant));
  }

  private async spend(merchant: Merchant, purpose: SpendPurpose | 'create', read: boolean): Promise<void> {
    const take = await this.ledgerCall(() =>
      this.opts.ledger.take(this.budgetKey(merchant), this.opts.perMinute, read),
    );
    if (!take.taken) this.refuse(merchant, purpose, take.paused ? 'paused' : 'budget', take.waitMs);
    this.opts.onSpend?.(merchant.id, purpose);
  }

  /** A send's check-status and its create: two tokens in one ledger call, the second kept for the create. */
  private async spendPair(merchant: Merchant, referenceId: string): Promise<void> {
    const key = this.budgetKey(merchant);
    const { first, second } = await this.ledgerCall(() => this.opts.ledger.takePair(key, this.opts.perMinute));
    if (!first.taken) this.refuse(merchant, 'create', first.paused ? 'paused' : 'budget', first.waitMs);
    this.opts.onSpend?.(merchant.id, 'create');
    if (!second) return;
    const now = Date.now();
    // Every entry lives PREPAID_MS from when it was set, so the oldest come first: the sweep stops at
    // the first one still good, and costs only what it removes.
    for (const [k, until] of this.prepaid) {
      if (until > now) break;
      this.prepaid.delete(k);
    }
    const id = `${key}\u0000${referenceId}`;
    this.prepaid.delete(id);
    this.prepaid.set(id, now + PREPAID_MS);
  }

  /** Spends the create token its check took along, unless it expired or a 429 paused the key since. */
  private spendPrepaid(merchant: Merchant, referenceId: string): boolean {
    const key = this.budgetKey(merchant);
    const id = `${key}\u0000${referenceId}`;
    const until = this.prepaid.get(id);
    if (until === undefined) return false;
    this.prepaid.delete(id);
    const now = Date.now();
    return until > now && (this.pausedUntil.get(key) ?? 0) <= now;
  }

  private refuse(
    merchant: Merchant,
    purpose: SpendPurpose | 'create',
    reason: 'budget' | 'paused' | 'recently_checked',
    waitMs: number,
  ): never {
    this.opts.onRefuse?.(merchant.id, purpose, reason);
    const why =
      reason === 'paused'
        ? 'the provider asked the gateway to wait (429)'
        : reason === 'recently_checked'
          ? 'this payout was checked moments ago'
          : "the merchant's provider budget is spent for now";
    throw new ProviderError('rate-limited', `Not sent: ${why}`, { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) });
  }

  /** A provider 429 pauses every call for the key until its Retry-After has passed. */
  private async watch429<T>(merchant: Merchant, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'rate-limited') {
        const seconds = error.details.retryAfter ?? 60;
        const key = this.budgetKey(merchant);
        this.pausedUntil.set(key, Date.now() + seconds * 1000);
        await this.opts.ledger.pause(key, seconds * 1000).catch(() => undefined);
      }
      throw error;
    }
  }

  private budgetKey(merchant: Merchant): string {
    let key = this.budgetKeys.get(merchant.apiKey);
    if (key === undefined) {
      key = `k:${keyId(this.opts.providerUrl, merchant.apiKey)}`;
      this.budgetKeys.set(merchant.apiKey, key);
    }
    return key;
  }

  /**
   * The ledger cannot be read (its store is away or full): nothing is sent, as the provider could not be
   * spent on knowingly. The fault is the gateway's own store, not the provider's, so callers answer as for
   * any other store outage (SERVICE_UNAVAILABLE).
   */
  private async ledgerCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new StoreUnavailableError('the provider budget cannot be read right now; nothing was sent', {
        cause: error,
      });
    }
  }
}
