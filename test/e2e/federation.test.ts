import { createGatewayRuntime, GatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { createClient } from 'graphql-sse';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayConfig } from '../../examples/federation/gateway.config';
import { ordersTypeDefs, startOrdersSubgraph } from '../../examples/federation/orders.subgraph';
import { CREATE_MOBILE, gql, knownSecrets, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';
import { recorder } from '../support/ws';

const A = {
  id: 'merchant-a',
  apiKey: 'key-federation-merchant-a-0123456789',
  token: 'tok_federation_a_0123456789abcdef',
};
const B = {
  id: 'merchant-b',
  apiKey: 'key-federation-merchant-b-0123456789',
  token: 'tok_federation_b_0123456789abcdef',
};
const auth = (m: typeof A) => ({ authorization: `Bearer ${m.token}` });

let stack: Stack;
let orders: { url: string; stop(): Promise<void> };
let runtime: GatewayRuntime;
let server: Server;
let supergraphUrl: string;

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
  writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
  for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
  stack = await startStack({ env: { MERCHANTS_FILE: file }, sandbox: { activeKeys: [A.apiKey, B.apiKey] } });
  orders = await startOrdersSubgraph(0);
  // Composed as a schema registry or `hive-gateway supergraph` would: from each subgraph's _service { sdl }.
  const sdl = await gql<{ _service: { sdl: string } }>(stack.graphqlUrl, '{ _service { sdl } }', {}, auth(A));
  const composed = composeServices([
    { name: 'payouts', typeDefs: parse(sdl.data!._service.sdl), url: stack.graphqlUrl },
    { name: 'orders', typeDefs: ordersTypeDefs, url: orders.url },
  ]);
  if (composed.errors) throw new Error(composed.errors.map((e) => e.message).join('; '));
  runtime = createGatewayRuntime({ ...gatewayConfig, supergraph: composed.supergraphSdl, logging: false });
  server = createServer((req, res) => void runtime(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  supergraphUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
  });
  await runtime?.dispose();
  await orders?.stop();
  await stack?.close();
});

const ORDER = `query Order($id: ID!) { order(id: $id) { id payout { referenceId status amount } } }`;
type Order = { order: { id: string; payout: { referenceId: string; status: string; amount: string } | null } };
const WATCH = `subscription Watch($r: ID!) { disbursementUpdated(referenceId: $r) { referenceId status } }`;

describe('a supergraph of this gateway and an orders subgraph, served by Hive Gateway', () => {
  it('creates a payout once, reads an order with its payout, and follows it to SUCCESSFUL', async () => {
    const orderId = uniqueRef('order');
    const creates = stack.sandbox.stats().createRequests;
    const created = await gql(supergraphUrl, CREATE_MOBILE, { input: mobileInput({ referenceId: orderId }) }, auth(A));
    expect(created.errors).toBeUndefined();
    expect(stack.sandbox.stats().createRequests).toBe(creates + 1);

    const read = await gql<Order>(supergraphUrl, ORDER, { id: orderId }, auth(A));
    expect(read.errors).toBeUndefined();
    expect(read.data?.order).toEqual({
      id: orderId,
      payout: { referenceId: orderId, status: expect.stringMatching(/PENDING|SUCCESSFUL/), amount: expect.any(String) },
    });

    const client = createClient({ url: supergraphUrl, headers: auth(A), retryAttempts: 0, singleConnection: false });
    const r = recorder<{ disbursementUpdated: { referenceId: string; status: string } }>();
    const stop = client.subscribe({ query: WATCH, variables: { r: orderId } }, r);
    try {
      await r.stream.completed;
      expect(r.stream.errors).toEqual([]);
      expect(r.stream.events.at(-1)?.disbursementUpdated).toEqual({ referenceId: orderId, status: 'SUCCESSFUL' });
    } finally {
      stop();
      client.dispose();
    }
    expect(stack.sandbox.stats().createRequests).toBe(creates + 1);
  });

  it('refuses a caller without a token, and sends nothing', async () => {
    const creates = stack.sandbox.stats().createRequests;
    const res = await gql(supergraphUrl, CREATE_MOBILE, { input: mobileInput() });
    expect(res.data?.createMobileMoneyDisbursement ?? null).toBeNull();
    expect(res.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.sandbox.stats().createRequests).toBe(creates);
  });

  it("cannot resolve another merchant's payout: the order's payout is null", async () => {
    const orderId = uniqueRef('order');
    const created = await gql(supergraphUrl, CREATE_MOBILE, { input: mobileInput({ referenceId: orderId }) }, auth(A));
    expect(created.errors).toBeUndefined();
    const read = await gql<Order>(supergraphUrl, ORDER, { id: orderId }, auth(B));
    expect(read.data?.order).toEqual({ id: orderId, payout: null });
  });
});
