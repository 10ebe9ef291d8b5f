import { Client } from 'graphql-ws';
import { eventually, gql, Stack, startStack, uniqueRef } from '../support/stack';
import { codesOf, subscribeOver, TRANSPORTS } from '../support/streams';
import { subscribe, Subscription, wsClient } from '../support/ws';
import { WATCH } from '../support/fixtures';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

async function metrics(): Promise<string> {
  return (await fetch(`${stack.gateway.url}/metrics`)).text();
}

/** graphql-ws hands an Error message's errors over as one array. */
const codeOf = (error: unknown): unknown => ([error].flat()[0] as { extensions?: { code?: unknown } }).extensions?.code;

describe('operations per websocket connection', () => {
  it('runs at most 100 of 1,000 subscribes sent at once, and refuses the rest', async () => {
    const client: Client = wsClient(stack.graphqlUrl);
    try {
      const subs: Subscription<unknown>[] = Array.from({ length: 1000 }, () =>
        subscribe(client, WATCH, { referenceId: uniqueRef('cap') }),
      );
      const refused = () => subs.filter((s) => s.errors.length > 0);
      await eventually(() => (refused().length >= 900 ? true : undefined), 400);
      await eventually(async () => (/^gateway_subscriptions_active 100$/m.test(await metrics()) ? true : undefined));
      expect(refused()).toHaveLength(900);
      expect(new Set(refused().map((s) => codeOf(s.errors[0])))).toEqual(new Set(['RATE_LIMITED']));
      expect(subs.filter((s) => s.errors.length === 0 && !s.isCompleted())).toHaveLength(100);
    } finally {
      await client.dispose();
    }
  });
});

describe('operation-name labels', () => {
  const labels = (text: string) =>
    new Set([...text.matchAll(/^gateway_graphql_operations_total\{operation="([^"]*)"/gm)].map((m) => m[1]));

  it('stay a bounded set after 200 made-up names over HTTP and websockets', async () => {
    const before = await metrics();
    for (let i = 0; i < 200; i += 1) {
      await gql(stack.graphqlUrl, `query Made${i} { __typename }`);
      // A name that is not in the document never becomes a label, even once.
      const res = await fetch(stack.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }', operationName: `Absent${i}` }),
      });
      await res.text();
    }
    const client = wsClient(stack.graphqlUrl);
    try {
      for (let i = 0; i < 200; i += 1) {
        const sub = subscribe(client, `query Ws${i} { __typename }`);
        await sub.completed;
        await new Promise<void>((resolve) => {
          client.subscribe(
            { query: '{ __typename }', operationName: `WsAbsent${i}` },
            { next: () => undefined, error: () => resolve(), complete: () => resolve() },
          );
        });
      }
    } finally {
      await client.dispose();
    }
    const after = await metrics();
    const seen = labels(after);
    expect([...seen].filter((l) => /Absent/.test(l))).toEqual([]);
    // The examples' six, 50 first-seen names, `other` and `anonymous` at most.
    expect(seen.size).toBeLessThanOrEqual(6 + 50 + 2);
    expect(seen.has('other')).toBe(true);
    expect(after.length - before.length).toBeLessThan(20 * 1024);
  });
});

describe('subscriptions per client, across its connections and transports', () => {
  const [alice, bob] = [`alice-${uniqueRef('t')}`, `bob-${uniqueRef('t')}`];
  let capped: Stack;
  beforeAll(async () => {
    capped = await startStack({ env: { CLIENT_TOKENS: `${alice},${bob}`, MAX_SUBSCRIPTIONS_PER_CLIENT: '3' } });
  });
  afterAll(() => capped.close());

  const live = async (count: number) =>
    eventually(async () => {
      const text = await (await fetch(`${capped.gateway.url}/metrics`)).text();
      return new RegExp(`^gateway_subscriptions_active ${count}$`, 'm').test(text) ? true : undefined;
    });

  it('holds one client to MAX_SUBSCRIPTIONS_PER_CLIENT on every transport, and no other client with it', async () => {
    const open = TRANSPORTS.map((t) =>
      subscribeOver(t, capped.graphqlUrl, WATCH, { referenceId: uniqueRef('c') }, `Bearer ${alice}`),
    );
    await live(3);
    const refused = await Promise.all(
      TRANSPORTS.map(async (t) => {
        const over = subscribeOver(t, capped.graphqlUrl, WATCH, { referenceId: uniqueRef('c') }, `Bearer ${alice}`);
        await eventually(() => (over.errors.length > 0 ? true : undefined));
        await over.close();
        return codesOf(over.errors);
      }),
    );
    expect(refused).toEqual([['RATE_LIMITED'], ['RATE_LIMITED'], ['RATE_LIMITED']]);
    // Another client is not held by alice's subscriptions.
    const other = subscribeOver('sse', capped.graphqlUrl, WATCH, { referenceId: uniqueRef('c') }, `Bearer ${bob}`);
    await live(4);
    // A subscription ended gives its place back.
    await open[0].close();
    await live(3);
    const again = subscribeOver(
      'multipart',
      capped.graphqlUrl,
      WATCH,
      { referenceId: uniqueRef('c') },
      `Bearer ${alice}`,
    );
    await live(4);
    expect(again.errors).toEqual([]);
    await Promise.all([...open.slice(1), other, again].map((s) => s.close()));
    await live(0);
  });
});
