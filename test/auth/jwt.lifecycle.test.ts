import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TestIdp } from '../support/idp';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack, subscriptionsLive } from '../support/stack';
import { subscribe } from '../support/ws';
import { WATCH } from '../support/fixtures';

const SCOPES = 'payouts:read payouts:write';
let idp: TestIdp;
let stack: Stack;

beforeAll(async () => {
  idp = await TestIdp.start();
  // A short cooldown so a rotation shows within the test; the default is 30 s.
  stack = await startStack({
    env: { JWT_JWKS_URL: idp.jwksUrl, JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience, JWT_JWKS_COOLDOWN_MS: '100' },
  });
});
afterAll(async () => {
  await stack.close();
  await idp.close();
});

const create = (token: string) =>
  gql<{ createMobileMoneyDisbursement: { status: string } }>(
    stack.graphqlUrl,
    CREATE_MOBILE,
    { input: mobileInput() },
    { authorization: `Bearer ${token}` },
  );

describe('JWT keys and expiry over time', () => {
  it('picks up a rotated signing key (a new kid in the key set) without a restart', async () => {
    const before = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES } });
    expect((await create(before)).errors).toBeUndefined();
    const fetched = idp.fetches;
    const kid = await idp.addKey('EdDSA');
    const rotated = await idp.sign({ kid, claims: { merchant_id: 'default', scope: SCOPES } });
    // Accepted once the cooldown since the last fetch has passed, on the next unknown kid.
    const res = await eventually(async () => {
      const answer = await create(rotated);
      return answer.errors ? undefined : answer;
    });
    expect(res.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    expect(idp.fetches).toBeGreaterThan(fetched);
    // The key rotated away from still verifies while it stays published.
    expect((await create(before)).errors).toBeUndefined();
  });

  it('closes a websocket with 4403 when its token expires, after an error on each running subscription', async () => {
    // Accepted within the 30 s clock tolerance until about 5 s from now.
    const token = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES }, expiresIn: -25 });
    const closeCodes: number[] = [];
    const client = createClient({
      url: stack.graphqlUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: () => ({ authorization: `Bearer ${token}` }),
      retryAttempts: 0,
      lazy: true,
      on: { closed: (event) => closeCodes.push((event as { code: number }).code) },
    });
    const stream = subscribe(client, `subscription { disbursementUpdates { referenceId status } }`);
    const watch = subscribe(client, WATCH, {
      referenceId: 'never-created',
    });
    await subscriptionsLive(stack, 2);
    await expect(stream.completed).rejects.toBeDefined();
    await expect(watch.completed).rejects.toBeDefined();
    // Each subscription ended with the server's error message, not with the socket's close event.
    const expired = [
      expect.objectContaining({
        extensions: { code: 'UNAUTHENTICATED' },
        message: expect.stringContaining('token expired'),
      }),
    ];
    expect(stream.errors).toEqual([expired]);
    expect(watch.errors).toEqual([expired]);
    await eventually(() => (closeCodes.length > 0 ? true : undefined));
    expect(closeCodes).toEqual([4403]);
    await client.dispose();
  });
});
