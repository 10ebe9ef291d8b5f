import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { createClient } from 'graphql-sse';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
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
let supergraph: Supergraph;

interface Supergraph {
  url: string;
  close(): Promise<void>;
}

/** Composes this gateway and the orders subgraph, as a schema registry would, and serves them with Hive Gateway. */
async function startSupergraph(payouts: Stack, routerToken?: string): Promise<Supergraph> {
  const headers = { ...auth(A), ...(routerToken && { 'x-router-token': routerToken }) };
  const sdl = await gql<{ _service: { sdl: string } }>(payouts.graphqlUrl, '{ _service { sdl } }', {}, headers);
  const composed = composeServices([
    { name: 'payouts', typeDefs: parse(sdl.data!._service.sdl), url: payouts.graphqlUrl },
    { name: 'orders', typeDefs: ordersTypeDefs, url: orders.url },
  ]);
  if (composed.errors) throw new Error(composed.errors.map((e) => e.message).join('; '));
  const runtime = createGatewayRuntime({ ...gatewayConfig, supergraph: composed.supergraphSdl, logging: false });
  const server = createServer((req, res) => void runtime(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
      });
      await runtime.dispose();
    },
  };
}

const merchantsFile = () => {
  const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
  writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
  return file;
};

beforeAll(async () => {
  for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
  stack = await startStack({ env: { MERCHANTS_FILE: merchantsFile() }, sandbox: { activeKeys: [A.apiKey, B.apiKey] } });
  orders = await startOrdersSubgraph(0);
  supergraph = await startSupergraph(stack);
});
afterAll(async () => {
  await supergraph?.close();
  await orders?.stop();
  await stack?.close();
});

const ORDER = `query Order($id: ID!) { order(id: $id) { id payout { referenceId status amount } } }`;
type Order = { order: { id: string; payout: { referenceId: string; status: string; amount: string } | null } };
const WATCH = `subscription Watch($r: ID!) { disbursementUpdated(referenceId: $r) { referenceId status } }`;

/** Subscribes through the supergraph over SSE until the payout's stream completes; its last state. */
async function follow(url: string, referenceId: string): Promise<unknown> {
  const client = createClient({ url, headers: auth(A), retryAttempts: 0, singleConnection: false });
  const r = recorder<{ disbursementUpdated: { referenceId: string; status: string } }>();
  const stop = client.subscribe({ query: WATCH, variables: { r: referenceId } }, r);
  try {
    await r.stream.completed;
    expect(r.stream.errors).toEqual([]);
    return r.stream.events.at(-1)?.disbursementUpdated;
  } finally {
    stop();
    client.dispose();
  }
}

describe('a supergraph of this gateway and an orders subgraph, served by Hive Gateway', () => {
  it('creates a payout once, reads an order with its payout, and follows it to SUCCESSFUL', async () => {
    const orderId = uniqueRef('order');
    const creates = stack.sandbox.stats().createRequests;
    const created = await gql(supergraph.url, CREATE_MOBILE, { input: mobileInput({ referenceId: orderId }) }, auth(A));
    expect(created.errors).toBeUndefined();
    expect(stack.sandbox.stats().createRequests).toBe(creates + 1);

    const read = await gql<Order>(supergraph.url, ORDER, { id: orderId }, auth(A));
    expect(read.errors).toBeUndefined();
    expect(read.data?.order).toEqual({
      id: orderId,
      payout: { referenceId: orderId, status: expect.stringMatching(/PENDING|SUCCESSFUL/), amount: expect.any(String) },
    });

    expect(await follow(supergraph.url, orderId)).toEqual({ referenceId: orderId, status: 'SUCCESSFUL' });
    expect(stack.sandbox.stats().createRequests).toBe(creates + 1);
  });

  it('refuses a caller without a token, and sends nothing', async () => {
    const creates = stack.sandbox.stats().createRequests;
    const res = await gql(supergraph.url, CREATE_MOBILE, { input: mobileInput() });
    expect(res.data?.createMobileMoneyDisbursement ?? null).toBeNull();
    expect(res.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.sandbox.stats().createRequests).toBe(creates);
  });

  it("cannot resolve another merchant's payout: the order's payout is null", async () => {
    const orderId = uniqueRef('order');
    const created = await gql(supergraph.url, CREATE_MOBILE, { input: mobileInput({ referenceId: orderId }) }, auth(A));
    expect(created.errors).toBeUndefined();
    const read = await gql<Order>(supergraph.url, ORDER, { id: orderId }, auth(B));
    expect(read.data?.order).toEqual({ id: orderId, payout: null });
  });
});

describe('under TRUSTED_DOCUMENTS, with a router token', () => {
  const ROUTER_TOKEN = `router-${randomUUID()}`;
  let guarded: Stack;
  let routed: Supergraph;
  beforeAll(async () => {
    knownSecrets.add(ROUTER_TOKEN);
    const manifest = join(mkdtempSync(join(tmpdir(), 'manifest-')), 'manifest.json');
    // The clients' own list holds none of the operations the router plans.
    writeFileSync(manifest, JSON.stringify({ 'only-typename': '{ __typename }' }));
    guarded = await startStack({
      env: {
        MERCHANTS_FILE: merchantsFile(),
        TRUSTED_DOCUMENTS: manifest,
        TRUSTED_DOCUMENTS_ROUTER_TOKENS: ROUTER_TOKEN,
        GRAPHQL_INTROSPECTION: 'true',
      },
      sandbox: { activeKeys: [A.apiKey, B.apiKey] },
    });
    process.env.PAYOUTS_ROUTER_TOKEN = ROUTER_TOKEN;
    routed = await startSupergraph(guarded, ROUTER_TOKEN);
  });
  afterAll(async () => {
    delete process.env.PAYOUTS_ROUTER_TOKEN;
    await routed?.close();
    await guarded?.close();
  });

  it("runs the operations the router plans, under the caller's credential", async () => {
    const orderId = uniqueRef('order');
    const creates = guarded.sandbox.stats().createRequests;
    const created = await gql(routed.url, CREATE_MOBILE, { input: mobileInput({ referenceId: orderId }) }, auth(A));
    expect(created.errors).toBeUndefined();
    expect(guarded.sandbox.stats().createRequests).toBe(creates + 1);
    expect((await gql<Order>(routed.url, ORDER, { id: orderId }, auth(B))).data?.order).toEqual({
      id: orderId,
      payout: null,
    });
    expect(await follow(routed.url, orderId)).toEqual({ referenceId: orderId, status: 'SUCCESSFUL' });
  });

  it.each([
    ['no router token', {}],
    ['a wrong router token', { 'x-router-token': `${ROUTER_TOKEN}x` }],
  ])('refuses the same operation sent straight to the subgraph with %s', async (_name, headers) => {
    const creates = guarded.sandbox.stats().createRequests;
    const res = await gql(guarded.graphqlUrl, CREATE_MOBILE, { input: mobileInput() }, { ...auth(A), ...headers });
    expect(res.status).toBe(400);
    expect(res.errors?.[0].extensions?.code).toBe('QUERY_NOT_IN_SAFELIST');
    expect(guarded.sandbox.stats().createRequests).toBe(creates);
  });
});
