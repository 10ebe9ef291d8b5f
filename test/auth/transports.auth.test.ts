import { ApolloClient, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { TestIdp } from '../support/idp';
import { eventually, Stack, startStack, subscriptionsLive } from '../support/stack';
import { codesOf, messagesOf, subscribeOver, TRANSPORTS } from '../support/streams';

const UPDATES = `subscription { disbursementUpdates { referenceId status } }`;
const EVENTS = `subscription { disbursementEvents { cursor } }`;

let idp: TestIdp;
let stack: Stack;
beforeAll(async () => {
  idp = await TestIdp.start();
  stack = await startStack({ env: { JWT_JWKS_URL: idp.jwksUrl, JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience } });
});
afterAll(async () => {
  await stack.close();
  await idp.close();
});

const token = (scope: string, expiresIn?: number) => idp.sign({ claims: { merchant_id: 'default', scope }, expiresIn });

/** How each transport says "no": graphql-ws closes the socket with 4403, the HTTP transports answer 401. */
const UNAUTHENTICATED = { websocket: 'close 4403', multipart: 'UNAUTHENTICATED', sse: 'UNAUTHENTICATED' } as const;

describe.each(TRANSPORTS)('credentials over %s', (transport) => {
  it.each([
    ['no token', async () => undefined],
    ['an expired token', async () => `Bearer ${await token('payouts:read', -120)}`],
    ['a token that is not one', async () => 'Bearer not-a-token'],
  ])('refuses %s before any event', async (_name, authorization) => {
    const sub = subscribeOver(transport, stack.graphqlUrl, UPDATES, {}, await authorization());
    await expect(sub.completed).rejects.toBeDefined();
    expect(sub.events).toEqual([]);
    expect(codesOf(sub.errors)).toContain(UNAUTHENTICATED[transport]);
    await sub.close();
  });

  it.each([
    ['disbursementUpdates', UPDATES],
    ['disbursementEvents', EVENTS],
  ])('refuses %s to a token without payouts:read, naming the scope', async (_name, query) => {
    const sub = subscribeOver(transport, stack.graphqlUrl, query, {}, `Bearer ${await token('payouts:write')}`);
    await sub.completed.catch(() => undefined);
    expect(sub.events).toEqual([]);
    expect(codesOf(sub.errors)).toContain('FORBIDDEN');
    expect(messagesOf(sub.errors)).toContain('payouts:read');
    await sub.close();
  });

  it('ends a running subscription with an error saying the token expired', async () => {
    // Accepted within the 30 s clock tolerance until about 3 s from now.
    const sub = subscribeOver(transport, stack.graphqlUrl, EVENTS, {}, `Bearer ${await token('payouts:read', -27)}`);
    await subscriptionsLive(stack, 1);
    await eventually(() => (sub.isCompleted() ? true : undefined), 200, 50);
    expect(sub.events).toEqual([]);
    expect(codesOf(sub.errors)).toContain('UNAUTHENTICATED');
    expect(messagesOf(sub.errors)).toContain('token expired');
    await sub.close();
    await eventually(async () => {
      const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
      return /^gateway_subscriptions_active 0$/m.test(text) ? true : undefined;
    });
  });
});

describe('a refusal before a multipart stream opens, as Apollo Client 4 reads it', () => {
  it.each([
    ['no token', async () => undefined, 'UNAUTHENTICATED'],
    ['a token without payouts:read', async () => `Bearer ${await token('payouts:write')}`, 'FORBIDDEN'],
  ])(
    '%s: CombinedGraphQLErrors with extensions.code, as for a query with the same token',
    async (_name, auth, code) => {
      const authorization = await auth();
      const sub = subscribeOver('multipart', stack.graphqlUrl, UPDATES, {}, authorization);
      await sub.completed.catch(() => undefined);
      await sub.close();
      const client = new ApolloClient({
        link: new HttpLink({ uri: stack.graphqlUrl, headers: authorization ? { authorization } : {} }),
        cache: new InMemoryCache(),
      });
      const queried = await client.query({ query: gql('query { walletBalance { amount } }') }).then(
        () => undefined,
        (error: unknown) => error,
      );
      client.stop();
      expect(sub.errors).toHaveLength(1);
      for (const error of [sub.errors[0], queried]) {
        expect(CombinedGraphQLErrors.is(error)).toBe(true);
        expect(CombinedGraphQLErrors.is(error) && error.errors.map((e) => e.extensions?.code)).toEqual([code]);
      }
    },
  );
});
