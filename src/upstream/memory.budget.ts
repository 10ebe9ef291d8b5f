import { BudgetLedger, Take } from './provider.budget';

interface Bucket {
  all: number;
  reads: number;
  at: number;
  pausedUntil: number;
}

/** Claims kept before expired ones are swept. */
const SWEEP_ABOVE = 1000;

/** Provider budgets of one process (no Redis): the same buckets as redis.budget.ts, in a Map. */
export class MemoryBudgetLedger implements BudgetLedger {
  private readonly buckets = new Map<string, Bucket>();
  private readonly claims = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  take(key: string, perMinute: number, read: boolean): Promise<Take> {
    return Promise.resolve(takeFrom(this.buckets, key, perMinute, read, this.now()));
  }

  pause(key: string, ms: number): Promise<void> {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? {
      all: Number.POSITIVE_INFINITY,
      reads: Number.POSITIVE_INFINITY,
      at: now,
      pausedUntil: 0,
    };
    bucket.pausedUntil = Math.max(bucket.pausedUntil, now + ms);
    this.buckets.set(key, bucket);
    return Promise.resolve();
  }

  claim(key: string, ms: number): Promise<boolean> {
    const now = this.now();
    if ((this.claims.get(key) ?? 0) > now) return Promise.resolve(false);
    if (this.claims.size >= SWEEP_ABOVE) for (const [k, until] of this.claims) if (until <= now) this.claims.delete(k);
    this.claims.set(key, now + ms);
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Continuous refill: `perMinute` a minute for the shared bucket, half that for the reads' own allowance, each capped
 * at its size; a read needs a token from both (see redis.budget.ts).
 */
function takeFrom(buckets: Map<string, Bucket>, key: string, perMinute: number, read: boolean, now: number): Take {
  const bucket = buckets.get(key);
  if (bucket && bucket.pausedUntil > now) return { taken: false, waitMs: bucket.pausedUntil - now, paused: true };
  if (perMinute <= 0) return { taken: true };
  const half = perMinute / 2;
  const elapsed = bucket ? Math.max(0, now - bucket.at) : 0;
  const all = Math.min(perMinute, (bucket?.all ?? perMinute) + (elapsed * perMinute) / 60_000);
  const reads = Math.min(half, (bucket?.reads ?? half) + (elapsed * half) / 60_000);
  // A read waits for whichever of its two buckets refills last.
  const waitMs = Math.max(
    all < 1 ? Math.ceil(((1 - all) * 60_000) / perMinute) : 0,
    read && reads < 1 ? Math.ceil(((1 - reads) * 60_000) / half) : 0,
  );
  if (waitMs > 0) return { taken: false, waitMs, paused: false };
  buckets.set(key, { all: all - 1, reads: read ? reads - 1 : reads, at: now, pausedUntil: bucket?.pausedUntil ?? 0 });
  return { taken: true };
}
