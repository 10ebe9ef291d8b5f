import { describeRedis, requireRedisUrl, uniquePrefix } from '../support/redis';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

/** A watcher that subscribes the moment the gateway is up, before its Redis subscriber connection is ready. */
describeRedis('merchant stream over Redis from the first moment', () => {
  const { prefix, cleanup } = uniquePrefix();
  let stack: Stack;
  afterAll(async () => {
    await stack.close();
    await cleanup();
  });

  it('delivers every change to a subscriber that arrived at once', async () => {
    stack = await startStack({ env: { REDIS_URL: requireRedisUrl(), REDIS_KEY_PREFIX: prefix } });
    const client = wsClient(stack.graphqlUrl);
    try {
      const sub = subscribe<{ disbursementUpdates: { referenceId: string; status: string } }>(
        client,
        `subscription { disbursementUpdates { referenceId status } }`,
      );
      const input = mobileInput();
      await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
      const events = await eventually(() => (sub.events.length >= 2 ? sub.events : undefined));
      expect(events.map((e) => e.disbursementUpdates.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    } finally {
      await client.dispose();
    }
  });
});
