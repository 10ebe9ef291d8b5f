import { Client } from 'graphql-ws';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack();
  client = wsClient(stack.graphqlUrl);
});
afterAll(async () => {
  await client.dispose();
  await stack.close();
});

async function metrics(): Promise<string> {
  const res = await fetch(`${stack.gateway.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/plain/);
  return res.text();
}

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('/metrics after real traffic', () => {
  it('counts operations, provider calls, callbacks, final payouts and live subscriptions', async () => {
    const refs: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const input = mobileInput();
      refs.push(input.referenceId as string);
      expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input })).errors).toBeUndefined();
    }
    const bad = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ currency: 'usd' }) });
    expect(bad.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    await fetch(stack.gateway.callbackUrl('default'), {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    const watcher = subscribe(client, `subscription { disbursementUpdates { referenceId } }`);
    await eventually(async () =>
      value(await metrics(), 'gateway_payouts_final_total{status="SUCCESSFUL"}') >= 2 ? true : undefined,
    );
    await eventually(async () => (value(await metrics(), 'gateway_subscriptions_active') === 1 ? true : undefined));

    const text = await metrics();
    expect(value(text, 'gateway_graphql_operations_total{operation="Create",type="mutation",outcome="ok"}')).toBe(2);
    expect(
      value(text, 'gateway_graphql_operations_total{operation="Create",type="mutation",outcome="BAD_USER_INPUT"}'),
    ).toBe(1);
    expect(
      value(text, 'gateway_provider_request_duration_seconds_count{endpoint="create_mobile_money",status="200"}'),
    ).toBe(2);
    expect(value(text, 'gateway_callbacks_total{result="applied"}')).toBe(2);
    expect(value(text, 'gateway_callbacks_total{result="bad_signature"}')).toBe(1);
    expect(value(text, 'gateway_payouts_final_total{status="SUCCESSFUL"}')).toBe(2);
    expect(value(text, 'gateway_websocket_connections')).toBe(1);
    expect(value(text, 'gateway_subscriptions_active')).toBe(1);
    expect(text).toMatch(/^gateway_reconciler_backlog \d+$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);

    watcher.dispose();
    await eventually(async () => (value(await metrics(), 'gateway_subscriptions_active') === 0 ? true : undefined));
  });
});

describe('/readyz and /healthz', () => {
  it('are 200 with every check named while all is well', async () => {
    expect((await fetch(`${stack.gateway.url}/healthz`)).status).toBe(200);
    const res = await fetch(`${stack.gateway.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ready: true,
      checks: { notShuttingDown: true, store: true, pubsub: true },
      auditWitness: 'none',
    });
  });

  it("stays ready while a merchant's provider circuit is open; the circuit shows in /metrics by merchant id", async () => {
    const failing = await startStack({ env: { UPSTREAM_BREAKER_RESET_MS: '60000' } });
    try {
      failing.sandbox.setFaults({ errorRate: 1 });
      for (let i = 0; i < 12; i += 1) await gql(failing.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
      // This replica can still serve: reads, callbacks and other merchants must not lose it behind a balancer.
      const res = await fetch(`${failing.gateway.url}/readyz`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { checks: Record<string, boolean> }).checks).not.toHaveProperty('provider');
      const text = await (await fetch(`${failing.gateway.url}/metrics`)).text();
      expect(text).toMatch(/^gateway_provider_circuit_open\{merchant="default",endpoint="create"\} 1$/m);
      expect(text).not.toContain('sandbox-key');
    } finally {
      await failing.close();
    }
  });
});
