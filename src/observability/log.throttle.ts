import type { Logger } from './pino.logger';

/**
 * What docs/operations.md promises for a line that may repeat (a database outage meets every
 * request and every polling loop): at most 5 a minute of each.
 */
export const REPEATED_LINES = { max: 5, windowMs: 60_000 };

/**
 * Lets at most `max` events a window through, so an outage writes a handful of lines rather than
 * one per request. The first event of a new window also says how many the last window held back.
 */
export function throttle(
  max: number,
  windowMs: number,
  now: () => number = Date.now,
): () => { pass: boolean; suppressed: number } {
  let windowStart = -Infinity;
  let passed = 0;
  let held = 0;
  return () => {
    const t = now();
    if (t - windowStart >= windowMs) {
      const suppressed = held;
      windowStart = t;
      passed = 1;
      held = 0;
      return { pass: true, suppressed };
    }
    if (passed < max) {
      passed += 1;
      return { pass: true, suppressed: 0 };
    }
    held += 1;
    return { pass: false, suppressed: 0 };
  };
}

/**
 * One line (`msg` at `level`) that a failure may repeat many times a second, such as a loop polling
 * a database that is away: written at most REPEATED_LINES.max times a window, the first of each
 * window carrying `suppressed`, how many the last one held back. The first ever is always written.
 */
export function repeatedLine(
  logger: Logger,
  level: 'warn' | 'error',
  msg: string,
  now?: () => number,
): (fields: Record<string, unknown>) => void {
  const gate = throttle(REPEATED_LINES.max, REPEATED_LINES.windowMs, now);
  return (fields) => {
    const { pass, suppressed } = gate();
    if (pass) logger[level]({ ...fields, ...(suppressed > 0 && { suppressed }) }, msg);
  };
}
