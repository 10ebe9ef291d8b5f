import CircuitBreaker from 'opossum';
import { DisbursementRequest, ProviderBalance, ProviderRecord } from '../disbursements/disbursement.model';
import { Merchant, ProviderError, ProviderPort } from '../disbursements/disbursement.ports';

export interface BreakerOptions {
  /** How long the circuit stays open before one trial call is let through. */
  resetTimeoutMs: number;
  /** Share of failing calls in the rolling window that opens the circuit. */
  errorThresholdPercentage?: number;
  /** Calls in the window before the share counts. */
  volumeThreshold?: number;
  onStateChange?: (endpoint: string, state: 'open' | 'halfOpen' | 'close') => void;
}

/** Failures that say the provider is unwell; a refusal of this request (400, 401/403, 429) says nothing of the sort. */
const countsAsFailure = (error: unknown) =>
  !(error instanceof ProviderError) || ['server-error', 'unknown', 'unavailable'].includes(error.kind);

/**
 * Fails fast with `unavailable` while the provider is failing, instead of piling requests onto it.
 * Creates and status checks have separate circuits: checks can be healthy while creates fail.
 * opossum's own timeout stays off: abandoning a create that is still running would turn an answer
 * we could have had into an unknown outcome; undici's timeouts bound each call instead.
 */
export class BreakingProvider implements ProviderPort {
  private readonly createBreaker: CircuitBreaker<[Merchant, DisbursementRequest], ProviderRecord>;
  private readonly statusBreaker: CircuitBreaker<[Merchant, string], ProviderRecord | undefined>;

  constructor(
    private readonly inner: ProviderPort,
    opts: BreakerOptions,
  ) {
    const settings: CircuitBreaker.Options = {
      timeout: false,
      resetTimeout: opts.resetTimeoutMs,
      errorThresholdPercentage: opts.errorThresholdPercentage ?? 50,
      volumeThreshold: opts.volumeThreshold ?? 10,
      rollingCountTimeout: 10_000,
      errorFilter: (error: unknown) => !countsAsFailure(error),
    };
    this.createBreaker = new CircuitBreaker((m: Merchant, r: DisbursementRequest) => inner.create(m, r), { ...settings, name: 'create' });
    this.statusBreaker = new CircuitBreaker((m: Merchant, id: string) => inner.checkStatus(m, id), { ...settings, name: 'status' });
    for (const breaker of [this.createBreaker, this.statusBreaker]) {
      breaker.on('open', () => opts.onStateChange?.(breaker.name, 'open'));
      breaker.on('halfOpen', () => opts.onStateChange?.(breaker.name, 'halfOpen'));
      breaker.on('close', () => opts.onStateChange?.(breaker.name, 'close'));
    }
  }

  create(merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord> {
    return this.createBreaker.fire(merchant, request).catch(rejectedByCircuit);
  }

  checkStatus(merchant: Merchant, referenceId: string): Promise<ProviderRecord | undefined> {
    return this.statusBreaker.fire(merchant, referenceId).catch(rejectedByCircuit);
  }

  /** Not behind a circuit: a balance read is cheap, sends nothing, and its failures say nothing about payouts. */
  balance(merchant: Merchant): Promise<ProviderBalance> {
    return this.inner.balance(merchant);
  }

  /** True while either circuit is open: the provider is known to be failing. */
  get open(): boolean {
    return this.createBreaker.opened || this.statusBreaker.opened;
  }

  shutdown(): void {
    this.createBreaker.shutdown();
    this.statusBreaker.shutdown();
  }
}

function rejectedByCircuit(error: unknown): never {
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EOPENBREAKER') {
    throw new ProviderError('unavailable', 'provider circuit open: recent calls failed, nothing was sent');
  }
  throw error;
}
