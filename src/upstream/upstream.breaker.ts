import { DisbursementRequest, ProviderBalance, ProviderRecord } from '../disbursements/disbursement.model';
import { Merchant, ProviderError, ProviderPort } from '../disbursements/disbursement.ports';
import { Circuit, CircuitOptions, CircuitState } from './upstream.circuit';

export type { CircuitState };

export type CircuitEndpoint = 'create' | 'status';

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
  create: Circuit;
  status: Circuit;
}

const refusal = () => new ProviderError('unavailable', 'provider circuit open: recent calls failed, nothing was sent');

/**
 * Fails fast with `unavailable` while the provider is failing for a merchant, instead of piling
 * requests onto it. Each provider key has its own circuits, so one merchant whose account makes
 * the provider fail cannot stop the others; creates and status checks have separate circuits, as
 * checks can be healthy while creates fail. The circuits have no timeout of their own: abandoning a
 * create that is still running would turn an answer we could have had into an unknown outcome;
 * undici's timeouts bound each call instead. Circuit (upstream.circuit.ts) keeps opossum's rules
 * without its per-call events, timers and promises.
 */
export class BreakingProvider implements ProviderPort {
  /** By provider key; merchants are a fixed, configured set, so this stays small. */
  private readonly circuits = new Map<string, Circuits>();
  private readonly settings: Omit<CircuitOptions, 'onStateChange'>;

  constructor(
    private readonly inner: ProviderPort,
    private readonly opts: BreakerOptions,
  ) {
    this.settings = {
      resetTimeoutMs: opts.resetTimeoutMs,
      errorThresholdPercentage: opts.errorThresholdPercentage ?? 50,
      volumeThreshold: opts.volumeThreshold ?? 10,
      windowMs: 10_000,
      buckets: 10,
      countsAsFailure,
      refusal,
    };
  }

  create(merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord> {
    return this.circuitsOf(merchant).create.guard(() => this.inner.create(merchant, request));
  }

  checkStatus(merchant: Merchant, referenceId: string): Promise<ProviderRecord | undefined> {
    return this.circuitsOf(merchant).status.guard(() => this.inner.checkStatus(merchant, referenceId));
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
    const told = (endpoint: CircuitEndpoint) => (state: CircuitState) =>
      this.opts.onStateChange?.(merchant.id, endpoint, state);
    circuits = {
      create: new Circuit({ ...this.settings, onStateChange: told('create') }),
      status: new Circuit({ ...this.settings, onStateChange: told('status') }),
    };
    this.circuits.set(merchant.apiKey, circuits);
    return circuits;
  }
}
