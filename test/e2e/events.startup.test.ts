import { describeEachEngine } from '../support/modes';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack, subscriptionsLive } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

/** A watcher that subscribes the moment the gateway is up, when its listening connection may not be open yet. */
describeEachEngine(
  'merchant stream heard through the database from the first moment',
  (databaseEnv) => {
    let stack: Stack | undefined;
    beforeAll(async () => {});
    afterAll(async () => {
      await stack?.close();
    });

    it('goes live once the gateway hears changes, and delivers every change after', async () => {
      stack = await startStack({ env: databaseEnv() });
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
  },
  { needs: ['listenNotify'] },
);
