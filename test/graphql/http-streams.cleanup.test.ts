import { getEventListeners } from 'node:events';
import { PubSubEvents } from '../../src/events/pubsub.events';
import { domain } from '../support/domain';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { listeningSessions } from '../support/postgres';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';
import { WATCH } from '../support/fixtures';

const STREAMS = 1000;
const UPDATES = `subscription { disbursementUpdates { status } }`;
const EVENTS = `subscription { disbursementEvents { cursor } }`;

async function activeSubscriptions(stack: Stack): Promise<number> {
  const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
  return Number(/^gateway_subscriptions_active (\d+)/m.exec(text)?.[1] ?? NaN);
}

/**
 * Timers the gateway's PostgreSQL pool may hold whatever the streams did: one 30 s idle timer per idle connection, up
 * to its 16 (postgres.open.ts), renewed by the pollers that keep using them; far fewer than the streams' 1,000.
 */
const POOL_IDLE_TIMERS = 16;

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

interface OpenStream {
  abort: AbortController;
  /** Whether the gateway ended the stream while the client still held it open. */
  endedByGateway: () => boolean;
}

/**
 * Opens one HTTP subscription stream with a plain fetch (multipart or SSE) and reads it until the
 * client aborts. Reading keeps the Response reachable: undici cancels the body of a Response that
 * is garbage collected unread, which would close the stream from the client's side at random.
 */
async function open(stack: Stack, i: number, query: string, variables: Record<string, unknown>): Promise<OpenStream> {
  const abort = new AbortController();
  const multipart = i % 2 === 0;
  const res = await fetch(multipart ? stack.graphqlUrl : `${stack.graphqlUrl}/stream`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: multipart ? 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0' : 'text/event-stream',
    },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  let ended = false;
  const reader = res.body!.getReader();
  const gone = () => {
    ended = !abort.signal.aborted;
  };
  void (async () => {
    for (;;) if ((await reader.read()).done) break;
  })().then(gone, gone);
  return { abort, endedByGateway: () => ended };
}

/** The listening sessions of a database heard through (the gateway opens its own at start); none elsewhere. */
async function listenersOf(listened: string | undefined): Promise<number[]> {
  if (!listened) return [];
  return eventually(async () => {
    const pids = await listeningSessions(listened);
    return pids.length > 0 ? pids : undefined;
  });
}

describeEachEngine('1,000 HTTP subscription streams closed by their clients', (env, engine) => {
  let stack: Stack;
  /** The block's database where the gateway listens to it for changes (its owner's URL); none elsewhere. */
  let listened: string | undefined;
  beforeAll(async () => {
    const settings = env();
    listened = engine.capabilities.includes('listenNotify') ? ownerUrl(settings) : undefined;
    // The default connection cap per address: 1,000 streams from one client are within it.
    stack = await startStack({ env: settings });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('leave no subscription, listener, LISTEN session or timer behind', async () => {
    const input = mobileInput({ accountNumber: '260971234222' });
    expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input })).errors).toBeUndefined();
    const before = timers();
    // Where the gateway listens to the database, the process's one listening session, which the streams must neither multiply nor end.
    const listener = await listenersOf(listened);
    const opened = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) => {
        if (i % 4 === 0) return open(stack, i, WATCH, { referenceId: input.referenceId });
        if (i % 4 === 1) return open(stack, i, WATCH, { referenceId: uniqueRef('never') });
        return open(stack, i, i % 4 === 2 ? UPDATES : EVENTS, {});
      }),
    );
    // Bounds, not speed claims: 1,000 streams take longer while other suites load the machine.
    await eventually(async () => ((await activeSubscriptions(stack)) === STREAMS ? true : undefined), 400, 100);
    // One heartbeat (multipart) or ping (SSE) timer per stream while they are open (short-lived timers counted
    // in `before` may have fired since, so the count is compared with the streams alone).
    expect(timers()).toBeGreaterThanOrEqual(STREAMS);
    expect(await listenersOf(listened)).toEqual(listener);

    expect(opened.filter((stream) => stream.endedByGateway())).toEqual([]);

    for (const { abort } of opened) abort.abort();
    await eventually(async () => ((await activeSubscriptions(stack)) === 0 ? true : undefined), 400, 100);
    const allowed = before + (listened ? POOL_IDLE_TIMERS : 0);
    await eventually(() => (timers() <= allowed ? true : undefined), 400, 100);
    expect(await listenersOf(listened)).toEqual(listener);
  }, 150_000);
});

describe('DisbursementService.changes', () => {
  const merchant = { id: 'm1', apiKey: 'unused' };
  const target = new EventTarget();
  const { service } = domain({ events: new PubSubEvents({ eventTarget: target }) });

  it('return() resolves at once while next() waits, answers that next() with done, and removes the listener', async () => {
    const changes = await service.changes(merchant);
    const next = changes.next();
    await eventually(() => (getEventListeners(target, 'merchant:m1').length === 1 ? true : undefined));
    await expect(changes.return?.(undefined)).resolves.toEqual({ done: true, value: undefined });
    await expect(next).resolves.toEqual({ done: true, value: undefined });
    expect(getEventListeners(target, 'merchant:m1')).toHaveLength(0);
  });
});
