import { describePostgres, freshDatabase, FreshDatabase } from '../support/postgres';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack, subscriptionsLive } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

/** A watcher that subscribes the moment the gateway is up, when its listening connection may not be open yet. */
describePostgres('merchant stream over PostgreSQL from the first moment', () => {
  let database: FreshDatabase;
  let stack: Stack | undefined;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await stack?.close();
    await database.drop();
  });

  it('goes live once the gateway hears changes, and delivers every change after', async () => {
    stack = await startStack({ env: { DATABASE_URL: database.url } });
    const client = wsClient(stack.graphqlUrl);
    try {
      const sub = subscribe<{ disbursementUpdates: { referenceId: string; status: string } }>(
        client,
        `subscription { disbursementUpdates { referenceId status } }`,
      );
      await subscriptionsLive(stack, 1);
      const input = mobileInput();
      expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input })).errors).toBeUndefined();
      const events = await eventually(() => (sub.events.length >= 2 ? sub.events : undefined));
      expect(events.map((e) => e.disbursementUpdates)).toEqual([
        { referenceId: input.referenceId, status: 'PENDING' },
        { referenceId: input.referenceId, status: 'SUCCESSFUL' },
      ]);
      expect(sub.errors).toEqual([]);
    } finally {
      await client.dispose();
    }
  });
});
