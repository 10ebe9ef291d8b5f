import { Take } from './provider.budget';

/** One budget as stored: what is left of each bucket (undefined: full), when counted, and a 429's pause. */
export interface Bucket {
  all?: number;
  reads?: number;
  at: number;
  pausedUntil: number;
}

/**
 * Continuous refill: `perMinute` a minute for the shared bucket, half that for the reads' own
 * allowance, each capped at its size; a read needs a token from both and waits for whichever
 * refills last. The same rule as PostgreSQL's `provider_budget_take` (postgres.migrations.ts), which
 * counts in the same call that locks the row; test/upstream/budget.parity.test.ts holds the two to one answer.
 */
export function takeFrom(
  bucket: Bucket | undefined,
  perMinute: number,
  read: boolean,
  now: number,
): { take: Take; next?: Bucket } {
  if (bucket && bucket.pausedUntil > now)
    return { take: { taken: false, waitMs: bucket.pausedUntil - now, paused: true } };
  if (perMinute <= 0) return { take: { taken: true } };
  const half = perMinute / 2;
  const elapsed = bucket ? Math.max(0, now - bucket.at) : 0;
  const all = Math.min(perMinute, (bucket?.all ?? perMinute) + (elapsed * perMinute) / 60_000);
  const reads = Math.min(half, (bucket?.reads ?? half) + (elapsed * half) / 60_000);
  const waitMs = Math.max(
    all < 1 ? Math.ceil(((1 - all) * 60_000) / perMinute) : 0,
    read && reads < 1 ? Math.ceil(((1 - reads) * 60_000) / half) : 0,
  );
  if (waitMs > 0) return { take: { taken: false, waitMs, paused: false } };
  return {
    take: { taken: true },
    next: { all: all - 1, reads: read ? reads - 1 : reads, at: now, pausedUntil: bucket?.pausedUntil ?? 0 },
  };
}
