export type RateDecision = { allowed: true } | { allowed: false; retryAfterSec: number };

const WINDOW_MS = 60_000;

/** Fixed one-minute window per API key; only active keys reach it, so the map stays small. */
export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private readonly limitPerMin: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request for key, unless it is over the limit. */
  take(key: string): RateDecision {
    if (this.limitPerMin <= 0) return { allowed: true };
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.limitPerMin) {
      const retryAfterSec = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000));
      return { allowed: false, retryAfterSec };
    }
    window.count += 1;
    return { allowed: true };
  }
}
