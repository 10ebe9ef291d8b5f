import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { bankInput, CREATE_BANK, eventually, gql, Stack, startStack } from '../support/stack';

type Relay = {
  url: string;
  delivered: boolean;
  gaveUp: boolean;
  attempts: { status: number | null; error: string | null }[];
};
const QUERY = `query One($r: ID!) { disbursement(referenceId: $r) { status relay { url delivered gaveUp attempts { status error } } } }`;

let receiver: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    received.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => receiver.close(r)));

async function relayOf(stack: Stack, referenceId: string, done: (relay: Relay) => boolean): Promise<Relay> {
  return eventually(async () => {
    const res = await gql<{ disbursement: { relay: Relay | null } }>(stack.graphqlUrl, QUERY, { r: referenceId });
    const relay = res.data?.disbursement.relay;
    return relay && done(relay) ? relay : undefined;
  }, 200);
}

describe('relay targets with a real provider configured (private networks not allowed)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port}/hook`],
    ['localhost', () => `http://localhost:${port}/hook`],
    ['0.0.0.0', () => `http://0.0.0.0:${port}/hook`],
    ['2130706433', () => `http://2130706433:${port}/hook`],
    ['0x7f.1', () => `http://0x7f.1:${port}/hook`],
    ['017700000001', () => `http://017700000001:${port}/hook`],
    ['[::1]', () => `http://[::1]:${port}/hook`],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${port}/hook`],
    ['the gateway’s own /metrics', () => `${stack.gateway.url}/metrics`],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['10.0.0.7', () => 'http://10.0.0.7:6379/'],
  ])('refuses a callbackUrl at %s at create, naming input.callbackUrl, and sends nothing', async (_name, url) => {
    const before = stack.sandbox.stats().createRequests;
    const res = await gql(stack.graphqlUrl, CREATE_BANK, { input: bankInput({ callbackUrl: url() }) });
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].extensions?.fields).toEqual(['input.callbackUrl']);
    expect(stack.sandbox.stats().createRequests).toBe(before);
  });

  it('accepts a public callbackUrl', async () => {
    const res = await gql(stack.graphqlUrl, CREATE_BANK, {
      input: bankInput({ callbackUrl: 'https://client.example.com/hooks' }),
    });
    expect(res.errors).toBeUndefined();
  });

  it('gives a relay to a name that resolves to a private address a failure that says only "refused"', async () => {
    // This machine's own name resolves to one of its own addresses: loopback or a private one.
    const url = `http://${hostname()}:${port}/resolved`;
    const input = bankInput({ callbackUrl: url });
    const created = await gql(stack.graphqlUrl, CREATE_BANK, { input });
    expect(created.errors).toBeUndefined();
    const relay = await relayOf(stack, input.referenceId as string, (r) => r.gaveUp);
    expect(relay).toEqual({ url, delivered: false, gaveUp: true, attempts: [{ status: null, error: 'refused' }] });
    expect(received).not.toContain('/resolved');
  });
});

describe('relay targets with RELAY_ALLOW_PRIVATE_NETWORKS=true', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { RELAY_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(() => stack.close());

  it('accepts 127.0.0.1 and delivers the final record there', async () => {
    const input = bankInput({ callbackUrl: `http://127.0.0.1:${port}/allowed` });
    const created = await gql(stack.graphqlUrl, CREATE_BANK, { input });
    expect(created.errors).toBeUndefined();
    const relay = await relayOf(stack, input.referenceId as string, (r) => r.delivered);
    expect(relay.attempts).toEqual([{ status: 204, error: null }]);
    expect(received).toContain('/allowed');
  });

  it('records a failed attempt as "failed", without the address or the error', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const input = bankInput({ callbackUrl: `http://127.0.0.1:${deadPort}/nobody` });
    await gql(stack.graphqlUrl, CREATE_BANK, { input });
    const relay = await relayOf(stack, input.referenceId as string, (r) => r.attempts.length > 0);
    expect(relay.attempts[0]).toEqual({ status: null, error: 'failed' });
    const text = (await gql(stack.graphqlUrl, QUERY, { r: input.referenceId })).text;
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1:\d+ /);
  });
});
