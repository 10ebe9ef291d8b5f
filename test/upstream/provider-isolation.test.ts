import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREATE_MOBILE, gql, knownSecrets, mobileInput, Stack, startStack } from '../support/stack';
import { PayoutRow } from '../support/fixtures';

const A = { id: 'merchant-a', apiKey: 'key-isolation-a-0123456789', token: 'tok_isolation_a_client_0123456789' };
const B = { id: 'merchant-b', apiKey: 'key-isolation-b-0123456789', token: 'tok_isolation_b_client_0123456789' };
const auth = (m: typeof A) => ({ authorization: `Bearer ${m.token}` });

let stack: Stack;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'merchants-'));
  const file = join(dir, 'merchants.json');
  writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
  stack = await startStack({
    env: { MERCHANTS_FILE: file, UPSTREAM_BREAKER_RESET_MS: '60000' },
    sandbox: { activeKeys: [A.apiKey, B.apiKey] },
  });
  for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
});
afterAll(() => stack.close());

const create = (m: typeof A, input: Record<string, unknown>) =>
  gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input }, auth(m));

describe("one merchant's failing provider account", () => {
  it("opens that merchant's circuit only: the other keeps paying out and the replica stays ready", async () => {
    // The sandbox answers 500 for accounts ending in 500: merchant A's payouts fail, many in a row,
    // each an unknown outcome until the circuit opens, then refused before anything is sent.
    const codes: unknown[] = [];
    for (let i = 0; i < 12; i += 1) {
      const failed = await create(A, mobileInput({ accountNumber: '260971234500' }));
      codes.push(failed.errors?.[0].extensions?.code);
    }
    expect(codes[0]).toBe('OUTCOME_UNKNOWN');
    expect(new Set(codes)).toEqual(new Set(['OUTCOME_UNKNOWN', 'UPSTREAM_UNAVAILABLE']));
    // A's circuit is open: even a good payout of A's fails fast, before anything is sent.
    const sentBefore = stack.sandbox.stats().createRequests;
    const fastFail = await create(A, mobileInput());
    expect(fastFail.errors?.[0].extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(stack.sandbox.stats().createRequests).toBe(sentBefore);

    // B is not touched by A's circuit.
    for (let i = 0; i < 3; i += 1) {
      const ok = await create(B, mobileInput());
      expect(ok.errors).toBeUndefined();
      expect(ok.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    }
    expect(stack.sandbox.stats().createRequests).toBe(sentBefore + 3);

    // Readiness is about this replica, not about a provider circuit: a load balancer keeps it.
    const ready = await fetch(`${stack.gateway.url}/readyz`);
    expect(ready.status).toBe(200);

    const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_provider_circuit_open\{merchant="merchant-a",endpoint="create"\} 1$/m);
    expect(metrics).not.toMatch(/^gateway_provider_circuit_open\{merchant="merchant-b",endpoint="create"\} 1$/m);
    for (const m of [A, B]) expect(metrics).not.toContain(m.apiKey);
  });
});
