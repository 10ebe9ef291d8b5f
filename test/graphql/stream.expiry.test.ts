import { Repeater } from '@repeaterjs/repeater';
import { ExecutionResult } from 'graphql';
import { endOnExpiry } from '../../src/graphql/operations/operation.core';
import { liveHeap } from '../support/heap';

/** A source the test feeds one result at a time. */
function source(): { results: AsyncIterable<ExecutionResult>; send(n: number): void } {
  let queued: ((result: ExecutionResult) => Promise<unknown>) | undefined;
  const results = new Repeater<ExecutionResult>(async (push, stop) => {
    queued = push;
    await stop;
  });
  // Not awaited: a push settles only once its result is taken.
  return { results, send: (n) => void queued?.({ data: { n } }) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('an HTTP stream (SSE, multipart) that ends when its credential does', () => {
  it('keeps nothing per result it passes on while the credential lasts', async () => {
    const { results, send } = source();
    const stream = endOnExpiry(results, { acceptedUntil: Date.now() + 3600_000 });
    const first = stream.next();
    await turn();
    send(0);
    expect((await first).value).toEqual({ data: { n: 0 } });
    const EVENTS = 20_000;
    const before = liveHeap();
    for (let i = 1; i <= EVENTS; i += 1) {
      const next = stream.next();
      send(i);
      expect((await next).value).toEqual({ data: { n: i } });
    }
    const perEvent = (liveHeap() - before) / EVENTS;
    await stream.return?.();
    // Racing each result against the expiry and the stream's end kept about 750 bytes per result.
    expect(perEvent).toBeLessThan(64);
  });

  it('ends with a token-expired error once the credential is no longer accepted', async () => {
    const { results } = source();
    const stream = endOnExpiry(results, { acceptedUntil: Date.now() + 20 });
    const last = await stream.next();
    expect(last.value).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });
});
