import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { CallDeadlines } from '../../src/upstream/upstream.deadline';

const TIMEOUT_MS = 40;

/** When a call's signal aborted, counted from the call's start. */
async function abortedAfter(call: { signal: AbortSignal }, startedAt: number): Promise<number> {
  if (!call.signal.aborted) await once(call.signal, 'abort');
  return Date.now() - startedAt;
}

describe('CallDeadlines (one timer for every provider call)', () => {
  it('aborts each call still running once its own deadline has passed, with a TimeoutError, and never one that ended', async () => {
    const deadlines = new CallDeadlines(TIMEOUT_MS);
    try {
      const ended = deadlines.start();
      const slowStart = Date.now();
      const slow = deadlines.start();
      ended.done();
      await sleep(TIMEOUT_MS / 2);
      const laterStart = Date.now();
      const later = deadlines.start();
      expect(await abortedAfter(slow, slowStart)).toBeGreaterThanOrEqual(TIMEOUT_MS - 1);
      expect((slow.signal.reason as Error).name).toBe('TimeoutError');
      expect(await abortedAfter(later, laterStart)).toBeGreaterThanOrEqual(TIMEOUT_MS - 1);
      expect(ended.signal.aborted).toBe(false);
    } finally {
      deadlines.close();
    }
  });
});
