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
