/** A circuit's state, with opossum's names. */
export type CircuitState = 'open' | 'halfOpen' | 'close';

export interface CircuitOptions {
  /** How long the circuit stays open before one trial call is let through. */
  resetTimeoutMs: number;
  /** Share of failing calls in the rolling window, in percent, above which the circuit opens. */
  errorThresholdPercentage: number;
  /** Calls in the window before the share counts. */
  volumeThreshold: number;
  /** The rolling window, cut into `buckets` slices; the oldest slice leaves as time moves on. */
  windowMs: number;
  buckets: number;
  /** Whether a rejection says the callee is unwell; any other rejection counts as a success, as a resolved call does. */
  countsAsFailure: (error: unknown) => boolean;
  /** What a call refused by an open circuit rejects with. */
  refusal: () => Error;
  onStateChange: (state: CircuitState) => void;
}

/**
 * One circuit breaker, with opossum's rules (fires, failures over a rolling window, open above the
 * threshold once the volume is reached, one trial call when half open) and none of its per-call
 * cost: no event emitter, no timer, no latency list, no wrapping promise per call. Buckets roll
 * lazily when a call comes; the only timer is the one that half-opens an open circuit.
 */
export class Circuit {
  private state: CircuitState = 'close';
  /** Half open and its one trial call already let through: others are refused until it settles. */
  private trialOut = false;
  private readonly fires: number[];
  private readonly failures: number[];
  private readonly bucketMs: number;
  /** The time slice (now / bucketMs) the newest bucket counts. */
  private slice = 0;
  private newest = 0;
  private halfOpenTimer?: NodeJS.Timeout;
  private shut = false;

  constructor(private readonly opts: CircuitOptions) {
    this.fires = new Array<number>(opts.buckets).fill(0);
    this.failures = new Array<number>(opts.buckets).fill(0);
    this.bucketMs = Math.max(1, Math.floor(opts.windowMs / opts.buckets));
  }

  /** Lets `call` through unless the circuit refuses it, and counts how it ended. */
  guard<T>(call: () => Promise<T>): Promise<T> {
    if (this.shut) return Promise.reject(new Error('the circuit has been shut down'));
    this.roll();
    this.fires[this.newest] += 1;
    if (this.state === 'open' || (this.state === 'halfOpen' && this.trialOut))
      return Promise.reject(this.opts.refusal());
    if (this.state === 'halfOpen') this.trialOut = true;
    let result: Promise<T>;
    try {
      result = call();
    } catch (error) {
      // A synchronous throw is a failed call like any other (opossum treats it so).
      result = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return result.then(
      (value) => {
        this.succeeded();
        return value;
      },
      (error: unknown) => {
        if (this.opts.countsAsFailure(error)) this.failed();
        else this.succeeded();
        throw error;
      },
    );
  }

  shutdown(): void {
    this.shut = true;
    clearTimeout(this.halfOpenTimer);
  }

  private succeeded(): void {
    if (this.state === 'halfOpen') this.close();
  }

  private failed(): void {
    this.roll();
    this.failures[this.newest] += 1;
    if (this.state === 'halfOpen') return this.open();
    let fires = 0;
    let failures = 0;
    for (let i = 0; i < this.fires.length; i += 1) {
      fires += this.fires[i];
      failures += this.failures[i];
    }
    if (fires < this.opts.volumeThreshold) return;
    if ((failures / fires) * 100 > this.opts.errorThresholdPercentage) this.open();
  }

  /** Empties the buckets whose slice of time has passed since the last call. */
  private roll(): void {
    const slice = Math.floor(Date.now() / this.bucketMs);
    const passed = Math.min(slice - this.slice, this.fires.length);
    for (let i = 0; i < passed; i += 1) {
      this.newest = (this.newest + 1) % this.fires.length;
      this.fires[this.newest] = 0;
      this.failures[this.newest] = 0;
    }
    this.slice = slice;
  }

  private open(): void {
    if (this.state === 'open') return;
    this.state = 'open';
    this.trialOut = false;
    this.opts.onStateChange('open');
    if (this.shut) return;
    this.halfOpenTimer = setTimeout(() => {
      this.state = 'halfOpen';
      this.trialOut = false;
      this.opts.onStateChange('halfOpen');
    }, this.opts.resetTimeoutMs);
    this.halfOpenTimer.unref();
  }

  private close(): void {
    clearTimeout(this.halfOpenTimer);
    this.state = 'close';
    this.trialOut = false;
    this.opts.onStateChange('close');
  }
}
