/** setTimeout fires at once for delays past 2^31-1 ms (24.8 days); longer waits are taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fire` once the time `at` (ms since the epoch) comes, however far off; returns the cancel.
 * The timer never keeps the process up: the connection or stream it ends clears it.
 */
export function atTime(at: number, fire: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = at - Date.now();
    timer = setTimeout(left > MAX_TIMER_MS ? arm : fire, Math.min(Math.max(left, 0), MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
