import { gql, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

const SIX_BATCHES = `mutation Six($i: [MobileMoneyDisbursementInput!]!) {
  a: createMobileMoneyDisbursements(inputs: $i) { referenceId }
  b: createMobileMoneyDisbursements(inputs: $i) { referenceId }
  c: createMobileMoneyDisbursements(inputs: $i) { referenceId }
  d: createMobileMoneyDisbursements(inputs: $i) { referenceId }
  e: createMobileMoneyDisbursements(inputs: $i) { referenceId }
  f: createMobileMoneyDisbursements(inputs: $i) { referenceId }
}`;
const BATCH = `mutation Batch($i: [MobileMoneyDisbursementInput!]!) { createMobileMoneyDisbursements(inputs: $i) { referenceId error { code } } }`;
const ONE = `mutation One($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId status } }`;

const inputs = (n: number) => Array.from({ length: n }, () => mobileInput({ referenceId: uniqueRef('q') }));

describe('payouts per operation', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('refuses a 600-item operation (six aliases of 100) whole with BAD_USER_INPUT, before anything is sent', async () => {
    const before = stack.sandbox.stats().createRequests;
    const res = await gql(stack.graphqlUrl, SIX_BATCHES, { i: inputs(100) });
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].message).toMatch(/at most 100 payouts/);
    expect(res.data ?? undefined).toBeUndefined();
    expect(stack.sandbox.stats().createRequests).toBe(before);
  });

  it("counts the payouts of a variable's default as those sent: six aliases of a 17-item default are refused whole", async () => {
    const literal = inputs(17)
      .map(
        (input) =>
          `{ ${Object.entries(input)
            .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
            .join(', ')} }`,
      )
      .join(', ');
    const defaulted = SIX_BATCHES.replace(
      '[MobileMoneyDisbursementInput!]!)',
      `[MobileMoneyDisbursementInput!]! = [${literal}])`,
    );
    const before = stack.sandbox.stats().createRequests;
    const res = await gql(stack.graphqlUrl, defaulted);
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].message).toMatch(/at most 100 payouts in all; this one carries 102/);
    expect(res.data ?? undefined).toBeUndefined();
    expect(stack.sandbox.stats().createRequests).toBe(before);
  });

  it('refuses the same over websockets, sending nothing', async () => {
    const before = stack.sandbox.stats().createRequests;
    const ws = wsClient(stack.graphqlUrl);
    try {
      const sub = subscribe(ws, SIX_BATCHES, { i: inputs(100) });
      await sub.completed.catch(() => undefined);
      expect(JSON.stringify(sub.errors)).toMatch(/BAD_USER_INPUT/);
      expect(sub.events).toEqual([]);
    } finally {
      await ws.dispose();
    }
    expect(stack.sandbox.stats().createRequests).toBe(before);
  });
});

describe('CLIENT_RATE_LIMIT_PER_MIN counts payouts', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { CLIENT_RATE_LIMIT_PER_MIN: '3' } });
  });
  afterAll(() => stack.close());

  it('with a quota of 3, at most 3 payouts are sent in the minute, whatever the shape of the operations', async () => {
    const answers = [
      await gql(stack.graphqlUrl, BATCH, { i: inputs(2) }),
      await gql(stack.graphqlUrl, BATCH, { i: inputs(2) }),
      await gql(stack.graphqlUrl, ONE, { input: mobileInput() }),
      await gql(stack.graphqlUrl, BATCH, { i: inputs(50) }),
      await gql(stack.graphqlUrl, ONE, { input: mobileInput() }),
    ];
    // The first batch fits; then a single create; everything after is RATE_LIMITED with a retryAfter.
    expect(answers[0].errors).toBeUndefined();
    const limited = answers.filter((a) => a.errors?.[0].extensions?.code === 'RATE_LIMITED');
    expect(limited.length).toBeGreaterThanOrEqual(3);
    for (const a of limited) expect(a.errors?.[0].extensions?.retryAfter).toBeGreaterThan(0);
    expect(stack.sandbox.stats().createRequests).toBeGreaterThanOrEqual(2);
    expect(stack.sandbox.stats().createRequests).toBeLessThanOrEqual(3);
  });
});

describe('an operation a transport does not carry costs no payouts', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { CLIENT_RATE_LIMIT_PER_MIN: '5' } });
  });
  afterAll(() => stack.close());

  it('a batch sent with GET over SSE (405) or as a multipart subscription (400) spends one request of the quota, no payouts', async () => {
    const variables = JSON.stringify({ i: inputs(2) });
    const overGet = await fetch(
      `${stack.graphqlUrl}/stream?${new URLSearchParams({ query: BATCH, variables }).toString()}`,
      { headers: { accept: 'text/event-stream' } },
    );
    const asMultipart = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { accept: 'multipart/mixed;subscriptionSpec=1.0', 'content-type': 'application/json' },
      body: JSON.stringify({ query: BATCH, variables: { i: inputs(2) } }),
    });
    await Promise.all([overGet.text(), asMultipart.text()]);
    expect([overGet.status, asMultipart.status]).toEqual([405, 400]);
    // Each counted one request, as any request to the gateway does: three payouts are left of five.
    const batch = await gql(stack.graphqlUrl, BATCH, { i: inputs(3) });
    expect(batch.errors).toBeUndefined();
    expect(stack.sandbox.stats().createRequests).toBe(3);
  });
});
