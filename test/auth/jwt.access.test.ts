import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TestIdp } from '../support/idp';
import {
  capturedLogs,
  capturedResponses,
  CREATE_MOBILE,
  eventually,
  gql,
  knownSecrets,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
} from '../support/stack';
import { subscribe } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

const A = { id: 'merchant-a', apiKey: 'key-jwt-merchant-a-0123456789', token: 'tok_jwt_merchant_a_client_0123456789' };
const B = { id: 'merchant-b', apiKey: 'key-jwt-merchant-b-0123456789', token: 'tok_jwt_merchant_b_client_0123456789' };
const BOTH = 'payouts:read payouts:write';

type Socket = { client: Client; closeCodes: number[]; wasConnected(): boolean };

let idp: TestIdp;
let stack: Stack;
const sockets: Client[] = [];

beforeAll(async () => {
  idp = await TestIdp.start();
  const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
  writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
  for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
  stack = await startStack({
    env: { MERCHANTS_FILE: file, JWT_JWKS_URL: idp.jwksUrl, JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience },
    sandbox: { activeKeys: [A.apiKey, B.apiKey] },
  });
});
afterAll(async () => {
  await Promise.all(sockets.map(async (s) => s.dispose()));
  await stack.close();
  await idp.close();
});

const tokenFor = (merchant: string, scope: string | string[]) =>
  idp.sign({ claims: { merchant_id: merchant, ...(Array.isArray(scope) ? { scp: scope } : { scope }) } });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const create = (token: string, input = mobileInput()) =>
  gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input }, bearer(token));
const ONE = `query One($r: ID!) { disbursement(referenceId: $r) { referenceId status } }`;
const read = (token: string, referenceId: unknown) =>
  gql<{ disbursement: PayoutRow | null }>(stack.graphqlUrl, ONE, { r: referenceId }, bearer(token));

/** A real graphql-ws client that presents the token in connectionParams and records how its socket closed. */
function socketWith(token: string): Socket {
  const closeCodes: number[] = [];
  let connected = false;
  const client = createClient({
    url: stack.graphqlUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: bearer(token),
    retryAttempts: 0,
    lazy: true,
    on: {
      connected: () => (connected = true),
      closed: (event) => closeCodes.push((event as { code: number }).code),
    },
  });
  sockets.push(client);
  return { client, closeCodes, wasConnected: () => connected };
}

describe('JWTs from the identity provider', () => {
  it('a token with payouts:write pays out, and one with payouts:read reads it back', async () => {
    const input = mobileInput();
    const res = await create(await tokenFor(A.id, BOTH), input);
    expect(res.errors).toBeUndefined();
    expect(res.data?.createMobileMoneyDisbursement).toMatchObject({
      referenceId: input.referenceId,
      status: 'PENDING',
    });
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
    const back = await read(await tokenFor(A.id, 'payouts:read'), input.referenceId);
    expect(back.data?.disbursement?.referenceId).toBe(input.referenceId);
  });

  it('shared tokens keep working beside JWTs, for the same merchant', async () => {
    const input = mobileInput();
    expect((await create(await tokenFor(A.id, BOTH), input)).errors).toBeUndefined();
    expect((await read(A.token, input.referenceId)).data?.disbursement?.referenceId).toBe(input.referenceId);
    expect((await create(A.token)).errors).toBeUndefined();
  });

  it('a read-only token reads and subscribes, but cannot pay out on either transport: FORBIDDEN naming payouts:write', async () => {
    const input = mobileInput();
    expect((await create(await tokenFor(A.id, BOTH), input)).errors).toBeUndefined();
    const readOnly = await tokenFor(A.id, ['payouts:read']);
    expect((await read(readOnly, input.referenceId)).data?.disbursement?.referenceId).toBe(input.referenceId);

    const { client } = socketWith(readOnly);
    const watch = subscribe<{ disbursementUpdated: PayoutRow }>(client, WATCH, { referenceId: input.referenceId });
    await watch.completed;
    expect(watch.events.map((e) => e.disbursementUpdated.status)).toContain('SUCCESSFUL');

    const refused = mobileInput();
    const res = await create(readOnly, refused);
    expect(res.status).toBe(403);
    expect(res.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(res.errors?.[0]?.message).toContain('payouts:write');
    const overWs = subscribe(client, CREATE_MOBILE, { input: refused });
    await expect(overWs.completed).rejects.toBeDefined();
    expect(overWs.errors).toEqual([
      [
        expect.objectContaining({
          extensions: { code: 'FORBIDDEN' },
          message: expect.stringContaining('payouts:write'),
        }),
      ],
    ]);
    // Refused before anything was sent.
    expect(stack.sandbox.stats().createRequestsByReferenceId[refused.referenceId as string]).toBeUndefined();
  });

  it('a write-only token cannot read or subscribe: FORBIDDEN naming payouts:read', async () => {
    const writeOnly = await tokenFor(A.id, 'payouts:write');
    const res = await read(writeOnly, 'anything');
    expect(res.status).toBe(403);
    expect(res.errors?.[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN' },
      message: expect.stringContaining('payouts:read'),
    });
    const { client } = socketWith(writeOnly);
    const watch = subscribe(client, `subscription { disbursementUpdates { referenceId } }`);
    await expect(watch.completed).rejects.toBeDefined();
    expect(watch.errors).toEqual([
      [
        expect.objectContaining({
          extensions: { code: 'FORBIDDEN' },
          message: expect.stringContaining('payouts:read'),
        }),
      ],
    ]);
  });

  const claimsA = { merchant_id: A.id, scope: BOTH };
  it.each<[string, () => Promise<string> | string, RegExp]>([
    ['expired', () => idp.sign({ claims: claimsA, expiresIn: -120 }), /expired/],
    ['not yet valid', () => idp.sign({ claims: claimsA, notBefore: 120 }), /not valid yet/],
    ['from another issuer', () => idp.sign({ claims: claimsA, issuer: 'https://someone-else.example/' }), /issuer/],
    ['for another audience', () => idp.sign({ claims: claimsA, audience: 'another-api' }), /audience/],
    ['signed by an unknown kid', () => idp.signWithUnknownKey({ claims: claimsA }), /key/],
    ['alg: none', () => idp.unsigned({ claims: claimsA }), /algorithm/],
    ['HS256 signed with the public key', () => idp.hs256WithPublicKey({ claims: claimsA }), /algorithm/],
  ])(
    'a token %s is refused: 401 UNAUTHENTICATED over HTTP, 4403 before any websocket operation',
    async (_case, make, reason) => {
      const token = await make();
      const input = mobileInput();
      const res = await create(token, input);
      expect(res.status).toBe(401);
      expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(res.errors?.[0]?.message).toMatch(reason);
      const socket = socketWith(token);
      const op = subscribe(socket.client, CREATE_MOBILE, { input });
      await expect(op.completed).rejects.toBeDefined();
      expect(socket.closeCodes).toEqual([4403]);
      expect(socket.wasConnected()).toBe(false);
      expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBeUndefined();
    },
  );

  it.each([
    ['a merchant the gateway does not serve', { merchant_id: 'merchant-z', scope: BOTH }],
    ['no merchant claim', { scope: BOTH }],
  ])('a valid token naming %s is FORBIDDEN', async (_case, claims) => {
    const token = await idp.sign({ claims });
    const res = await create(token);
    expect(res.status).toBe(403);
    expect(res.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const socket = socketWith(token);
    await expect(
      subscribe(socket.client, `subscription { disbursementUpdates { referenceId } }`).completed,
    ).rejects.toBeDefined();
    expect(socket.closeCodes).toEqual([4403]);
  });

  it("merchant B's token never sees merchant A's payouts", async () => {
    const tokenA = await tokenFor(A.id, BOTH);
    const tokenB = await tokenFor(B.id, BOTH);
    const { client } = socketWith(tokenB);
    const streamB = subscribe<{ disbursementUpdates: PayoutRow }>(
      client,
      `subscription { disbursementUpdates { referenceId status } }`,
    );
    const inputA = mobileInput();
    const watchA = subscribe<{ disbursementUpdated: PayoutRow }>(client, WATCH, { referenceId: inputA.referenceId });
    await subscriptionsLive(stack, 2);
    expect((await create(tokenA, inputA)).errors).toBeUndefined();
    const inputB = mobileInput();
    expect((await create(tokenB, inputB)).errors).toBeUndefined();
    await eventually(() =>
      streamB.events.some(
        (e) =>
          e.disbursementUpdates.referenceId === inputB.referenceId && e.disbursementUpdates.status === 'SUCCESSFUL',
      )
        ? true
        : undefined,
    );
    // A's payout has settled too by now (same settle delay, created first).
    await eventually(async () =>
      (await read(tokenA, inputA.referenceId)).data?.disbursement?.status === 'SUCCESSFUL' ? true : undefined,
    );
    expect(streamB.events.map((e) => e.disbursementUpdates.referenceId)).not.toContain(inputA.referenceId);
    expect(watchA.events).toEqual([]);
    expect((await read(tokenB, inputA.referenceId)).data).toEqual({ disbursement: null });
    const refresh = `query R($r: ID!) { disbursement(referenceId: $r, refresh: true) { referenceId } }`;
    expect((await gql(stack.graphqlUrl, refresh, { r: inputA.referenceId }, bearer(tokenB))).data).toEqual({
      disbursement: null,
    });
    streamB.dispose();
    watchA.dispose();
  });

  it('unknown kids do not make the gateway hammer the key set (one fetch per cooldown)', async () => {
    await create(await tokenFor(A.id, BOTH));
    const before = idp.fetches;
    const tokens = await Promise.all(Array.from({ length: 10 }, () => idp.signWithUnknownKey({ claims: claimsA })));
    const answers = await Promise.all(tokens.map((t) => create(t)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(401));
    expect(idp.fetches - before).toBeLessThanOrEqual(1);
  });

  it('no token or key appears in a response or a log line', async () => {
    await create(await tokenFor(A.id, BOTH));
    const tokens = [...knownSecrets].filter((s) => s.startsWith('eyJ'));
    expect(tokens.length).toBeGreaterThan(10);
    for (const secret of knownSecrets) {
      expect(capturedLogs.filter((l) => l.includes(secret))).toEqual([]);
      expect(capturedResponses.filter((r) => r.includes(secret))).toEqual([]);
    }
  });
});
