import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TestIdp } from '../support/idp';
import { launchGateway } from '../support/process';
import { gql, Stack, startStack } from '../support/stack';
import { codesOf, subscribeOver, Transport, TRANSPORTS } from '../support/streams';
import { subscribe } from '../support/ws';

const READ = `{ walletBalance { amount } }`;
const SCOPES = 'payouts:read payouts:write';
const UPDATES = `subscription { disbursementUpdates { referenceId status } }`;

/** How each transport says "retry later" and "sign in again": a query over HTTP POST, a subscription over the others. */
const RETRY_LATER = {
  http: '503 SERVICE_UNAVAILABLE',
  websocket: 'close 1013',
  multipart: 'SERVICE_UNAVAILABLE',
  sse: 'SERVICE_UNAVAILABLE',
} as const;
const SIGN_IN_AGAIN = {
  http: '401 UNAUTHENTICATED',
  websocket: 'close 4403',
  multipart: 'UNAUTHENTICATED',
  sse: 'UNAUTHENTICATED',
} as const;

/** What a client is told when it comes with this token, as its own client shows it. */
async function refusal(stack: Stack, transport: 'http' | Transport, token: string): Promise<string[]> {
  if (transport === 'http') {
    const res = await gql(stack.graphqlUrl, READ, {}, { authorization: `Bearer ${token}` });
    return (res.errors ?? []).map((e) => `${res.status} ${String(e.extensions?.code)}`);
  }
  const sub = subscribeOver(transport, stack.graphqlUrl, UPDATES, {}, `Bearer ${token}`);
  await sub.completed.catch(() => undefined);
  await sub.close();
  expect(sub.events).toEqual([]);
  return codesOf(sub.errors);
}

/** The close codes a websocket connecting with this token gets. */
async function wsCloseCodes(stack: Stack, token: string): Promise<number[]> {
  const closeCodes: number[] = [];
  const client = createClient({
    url: stack.graphqlUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
    on: { closed: (event) => closeCodes.push((event as { code: number }).code) },
  });
  try {
    await expect(subscribe(client, '{ __typename }').completed).rejects.toBeDefined();
    return closeCodes;
  } finally {
    await client.dispose();
  }
}

describe('a key set that never answered well', () => {
  let idp: TestIdp;
  let stack: Stack;
  beforeAll(async () => {
    idp = await TestIdp.start();
    idp.fail(500);
    stack = await startStack({
      env: {
        JWT_JWKS_URL: idp.jwksUrl,
        JWT_ISSUER: idp.issuer,
        JWT_AUDIENCE: idp.audience,
        JWT_JWKS_COOLDOWN_MS: '60000',
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await idp.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE to a valid-looking JWT (never 401), and closes a websocket with 1013 (never 4403)', async () => {
    const token = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES } });
    const res = await gql(stack.graphqlUrl, READ, {}, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(503);
    expect(res.errors?.[0].extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(await wsCloseCodes(stack, token)).toEqual([1013]);
  });

  it('100 bad tokens cause at most 2 key set fetches: failed fetches honour the cooldown, concurrent ones share one', async () => {
    const before = idp.fetches;
    const tokens = await Promise.all(
      Array.from({ length: 100 }, () => idp.signWithUnknownKey({ claims: { merchant_id: 'default' } })),
    );
    const answers = await Promise.all(
      tokens.map((t) => gql(stack.graphqlUrl, READ, {}, { authorization: `Bearer ${t}` })),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([503]));
    expect(idp.fetches - before).toBeLessThanOrEqual(2);
  });
});

describe('a key set that fails after a good fetch', () => {
  let idp: TestIdp;
  let stack: Stack;
  beforeAll(async () => {
    idp = await TestIdp.start();
    // No cooldown: every unknown kid tries the failing key set again.
    stack = await startStack({
      env: { JWT_JWKS_URL: idp.jwksUrl, JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience, JWT_JWKS_COOLDOWN_MS: '0' },
    });
  });
  afterAll(async () => {
    await stack.close();
    await idp.close();
  });

  it.each([[500], ['garbage' as const]])(
    'known keys still verify, and an unknown kid cannot be judged, while the key set answers %s',
    async (outage) => {
      const known = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES } });
      expect((await gql(stack.graphqlUrl, READ, {}, { authorization: `Bearer ${known}` })).errors).toBeUndefined();
      idp.fail(outage);
      try {
        const fetched = idp.fetches;
        // An unknown kid makes the gateway look again, and that fetch fails.
        const unknown = await idp.signWithUnknownKey({ claims: { merchant_id: 'default', scope: SCOPES } });
        // The key may have been published since the last good set: not the token's fault.
        expect(await refusal(stack, 'http', unknown)).toEqual([RETRY_LATER.http]);
        expect(idp.fetches).toBeGreaterThan(fetched);
        const again = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES } });
        const res = await gql<{ walletBalance: { amount: string } }>(
          stack.graphqlUrl,
          READ,
          {},
          { authorization: `Bearer ${again}` },
        );
        expect(res.errors).toBeUndefined();
        expect(res.data?.walletBalance.amount).toBeDefined();
      } finally {
        idp.fail(undefined);
      }
    },
  );

  it.each(['http' as const, ...TRANSPORTS])(
    'over %s, an unknown kid is "retry later" while the key set fails, and "sign in again" once it answers',
    async (transport) => {
      const unknown = await idp.signWithUnknownKey({ claims: { merchant_id: 'default', scope: SCOPES } });
      idp.fail(500);
      try {
        expect(await refusal(stack, transport, unknown)).toEqual([RETRY_LATER[transport]]);
      } finally {
        idp.fail(undefined);
      }
      expect(await refusal(stack, transport, unknown)).toEqual([SIGN_IN_AGAIN[transport]]);
    },
  );

  it('refuses a token issued beyond the clock tolerance in the future', async () => {
    const future = await idp.sign({
      claims: { merchant_id: 'default', scope: SCOPES, iat: Math.floor(Date.now() / 1000) + 3600 },
    });
    const res = await gql(stack.graphqlUrl, READ, {}, { authorization: `Bearer ${future}` });
    expect(res.status).toBe(401);
    expect(res.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.errors?.[0].message).toMatch(/not valid yet/);
  });
});

describe('startup', () => {
  it.each([
    ['JWT_ISSUER and JWT_AUDIENCE', {}],
    ['JWT_ISSUER', { JWT_AUDIENCE: 'gateway' }],
    ['JWT_AUDIENCE', { JWT_ISSUER: 'https://idp.example/' }],
  ])('is refused with one line naming %s when JWT_JWKS_URL is set without it', async (named, extra) => {
    const started = launchGateway({
      PORT: '0',
      SANDBOX_PORT: '0',
      JWT_JWKS_URL: 'https://idp.example/jwks.json',
      ...extra,
    });
    await expect(started).rejects.toThrow(`Missing setting ${named}: required when JWT_JWKS_URL is set`);
  });
});
