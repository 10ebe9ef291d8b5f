import CircuitBreaker from 'opossum';
import { DisbursementRequest, ProviderBalance, ProviderRecord } from '../disbursements/disbursement.model';
import { Merchant, ProviderError, ProviderPort } from '../disbursements/disbursement.ports';

export type CircuitEndpoint = 'create' | 'status';
export type CircuitState = 'open' | 'halfOpen' | 'close';

export interface BreakerOptions {
  /** How long the circuit stays open before one trial call is let through. */
  resetTimeoutMs: number;
  /** Share of failing calls in the rolling window that opens the circuit. */
  errorThresholdPercentage?: number;
  /** Calls in the window before the share counts. */
  volumeThreshold?: number;
  /** Told by merchant id (never by key) whenever one of its circuits changes state. */
  onStateChange?: (merchantId: string, endpoint: CircuitEndpoint, state: CircuitState) => void;
}

/** Failures that say the provider is unwell; a refusal of this request (400, 401/403, 429) says nothing of the sort. */
const countsAsFailure = (error: unknown) =>
  !(error instanceof ProviderError) || ['server-error', 'unknown', 'unavailable'].includes(error.kind);

interface Circuits {
  create: CircuitBreaker<[Merchant, DisbursementRequest], ProviderRecord>;
  status: CircuitBreaker<[Merchant, string], ProviderRecord | undefined>;
}

/**
 * Fails fast with `unavailable` while the provider is failing for a merchant, instead of piling
 * requests onto it. Each provider key has its own circuits, so one merchant whose account makes
 * the provider fail cannot stop the others; creates and status checks have separate circuits, as
 * checks can be healthy while creates fail. opossum's own timeout stays off: abandoning a create
 * that is still running would turn an answer we could have had into an unknown outcome; undici's
 * timeouts bound each call instead.
 */
export class BreakingProvider implements ProviderPort {
  /** By provider key; merchants are a fixed, configured set, so this stays small. */
  private readonly circuits = new Map<string, Circuits>();
  private readonly settings: CircuitBreaker.Options;

  constructor(
    private readonly inner: ProviderPort,
    private readonly opts: BreakerOptions,
  ) {
    this.settings = {
      timeout: false,
      resetTimeout: opts.resetTimeoutMs,
      errorThresholdPercentage: opts.errorThresholdPercentage ?? 50,
      volumeThreshold: opts.volumeThreshold ?? 10,
      rollingCountTimeout: 10_000,
      errorFilter: (error: unknown) => !countsAsFailure(error),
    };
  }

  create(merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord> {
    return this.circuitsOf(merchant).create.fire(merchant, request).catch(rejectedByCircuit);
  }

  checkStatus(merchant: Merchant, referenceId: string): Promise<ProviderRecord | undefined> {
    return this.circuitsOf(merchant).status.fire(merchant, referenceId).catch(rejectedByCircuit);
  }

  /** Not behind a circuit: a balance read is cheap, sends nothing, and its failures say nothing about payouts. */
  balance(merchant: Merchant): Promise<ProviderBalance> {
    return this.inner.balance(merchant);
  }

  shutdown(): void {
    for (const { create, status } of this.circuits.values()) {
      create.shutdown();
      status.shutdown();
    }
    this.circuits.clear();
  }

  private circuitsOf(merchant: Merchant): Circuits {
    let circuits = this.circuits.get(merchant.apiKey);
    if (circuits) return circuits;
    circuits = {
      create: new CircuitBreaker((m: Merchant, r: DisbursementRequest) => this.inner.create(m, r), { ...this.settings }),
      status: new CircuitBreaker((m: Merchant, id: string) => this.inner.checkStatus(m, id), { ...this.settings }),
    };
    for (const endpoint of ['create', 'status'] as const) {
      const breaker = circuits[endpoint];
      const told = (state: CircuitState) => () => this.opts.onStateChange?.(merchant.id, endpoint, state);
      breaker.on('open', told('open'));
      breaker.on('halfOpen', told('halfOpen'));
      breaker.on('close', told('close'));
    }
    this.circuits.set(merchant.apiKey, circuits);
    return circuits;
  }
}

function rejectedByCircuit(error: unknown): never {
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EOPENBREAKER') {
    throw new ProviderError('unavailable', 'provider circuit open: recent calls failed, nothing was sent');
  }
  throw error;
}
