import { setTimeout as sleep } from 'node:timers/promises';

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Polls until `done()` holds or the time is up; answers whether it held. */
export async function waitUntil(done: () => boolean, timeoutMs: number, everyMs = 10): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(everyMs);
  }
  return true;
}

/** 12,345 / 1.23 / 0.012: enough digits to read, no more. */
export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export const mib = (bytes: number) => bytes / (1024 * 1024);
export const kib = (bytes: number) => bytes / 1024;
