import { Client } from 'graphql-ws';
import { eventually, gql, Stack, startStack, uniqueRef } from '../support/stack';
import { subscribe, Subscription, wsClient } from '../support/ws';

const WATCH = `subscription Watch($referenceId: ID!) { disbursementUpdated(referenceId: $referenceId) { referenceId status } }`;

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
