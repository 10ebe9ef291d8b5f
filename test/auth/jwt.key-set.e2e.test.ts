import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TestIdp } from '../support/idp';
import { launchGateway } from '../support/process';
import { gql, Stack, startStack } from '../support/stack';
import { subscribe } from '../support/ws';

const READ = `{ walletBalance { amount } }`;
const SCOPES = 'payouts:read payouts:write';

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

  it.each([[500], ['garbage' as const]])('known keys still verify while the key set answers %s', async (outage) => {
    const known = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES } });
    expect((await gql(stack.graphqlUrl, READ, {}, { authorization: `Bearer ${known}` })).errors).toBeUndefined();
    idp.fail(outage);
    try {
      const fetched = idp.fetches;
      // An unknown kid makes the gateway look again, and that fetch fails.
      const unknown = await idp.signWithUnknownKey({ claims: { merchant_id: 'default', scope: SCOPES } });
      const refused = await gql(stack.graphqlUrl, READ, {}, { authorization: `Bearer ${unknown}` });
      expect(refused.status).toBe(401);
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
  });

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
