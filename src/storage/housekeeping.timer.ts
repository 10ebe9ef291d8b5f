import { repeatedLine } from '../observability/log.throttle';
import { Logger } from '../observability/pino.logger';

/** How often retention and expired quotas are swept. */
export const HOUSEKEEPING_MS = 60_000;
/** How often the embedded file's high-water mark is saved, and replicas look for a new rewind (db:restored). */
export const HISTORY_MS = 1000;

/** A timer that never keeps the process alive, whose failures are logged (as repeated lines), not thrown. */
export function every(ms: number, work: () => Promise<void>, logger: Logger): NodeJS.Timeout {
  const failed = repeatedLine(logger, 'warn', 'housekeeping failed; tried again later');
  const timer = setInterval(() => {
    work().catch((error: unknown) => failed({ err: error }));
  }, ms);
  timer.unref();
  return timer;
}
