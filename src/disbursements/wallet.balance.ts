import { balanceUnavailable, GatewayError, providerAuthFailed, providerRateLimited } from './disbursement.errors';
import { Merchant, ProviderError, ProviderPort } from './disbursement.ports';

export interface WalletBalance {
  amount: string;
  /** Unset when the provider does not name it. */
  currency?: string;
  /** When the provider gave this figure (a cached figure keeps its own time). */
  asOf: Date;
}

export interface WalletBalancesOptions {
  provider: Pick<ProviderPort, 'balance'>;
  /** How long one answer is served to every caller of the merchant. Default 5000. */
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  value?: WalletBalance;
  expiresAt: number;
  pending?: Promise<WalletBalance>;
}

/**
 * The merchant's wallet balance from the provider, kept a few seconds per merchant in this
 * process so a dashboard refreshing on every payout costs the provider one call per few seconds;
 * concurrent callers share one request. Failures are not kept: the next call asks again. While the
 * provider may not be asked (its 429, the pause that sets, or the budget holding the call back), the
 * last known figure answers, its `asOf` saying how old it is; any other failure forgets it.
 */
export class WalletBalances {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: WalletBalancesOptions) {
    this.ttlMs = opts.ttlMs ?? 5000;
    this.now = opts.now ?? Date.now;
  }

  get(merchant: Merchant): Promise<WalletBalance> {
    const entry = this.entries.get(merchant.id);
    if (entry?.value && entry.expiresAt > this.now()) return Promise.resolve(entry.value);
    if (entry?.pending) return entry.pending;
    const pending = this.fetch(merchant);
    this.entries.set(merchant.id, { ...entry, expiresAt: entry?.expiresAt ?? 0, pending });
    return pending;
  }

  private async fetch(merchant: Merchant): Promise<WalletBalance> {
    try {
      const answer = await this.opts.provider.balance(merchant);
      const value: WalletBalance = { ...answer, asOf: new Date(this.now()) };
      this.entries.set(merchant.id, { value, expiresAt: this.now() + this.ttlMs });
      return value;
    } catch (error) {
      const known = this.entries.get(merchant.id)?.value;
      if (known && error instanceof ProviderError && error.kind === 'rate-limited') {
        // Kept, not refreshed: the next call asks the provider again.
        this.entries.set(merchant.id, { value: known, expiresAt: 0 });
        return known;
      }
      this.entries.delete(merchant.id);
      throw balanceError(error);
    }
  }
}

function balanceError(error: unknown): GatewayError {
  if (error instanceof ProviderError && error.kind === 'auth') return providerAuthFailed();
  if (error instanceof ProviderError && error.kind === 'rate-limited')
    return providerRateLimited(error.details.retryAfter);
  return balanceUnavailable();
}
