import { Client } from 'graphql-ws';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { launchGateway } from '../support/process';
import { describeEachEngine } from '../support/modes';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput, subscriptionsLive } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

const TOKEN = 'tok_replica_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const QUERY = `query One($r: ID!) { disbursement(referenceId: $r) { referenceId status identifier } }`;

/** The settings of a gateway process over `shared`, with the test's `extra`. */
const envOf = (shared: Record<string, string>, extra: Record<string, string> = {}) => ({
  ...shared,
  PORT: '0',
  CLIENT_TOKENS: TOKEN,
  CLIENT_RATE_LIMIT_PER_MIN: '0',
  RECONCILE_PENDING_AFTER_MS: '600000',
  ...extra,
});

/** Several real gateway processes sharing one database, as a fleet behind a load balancer would. */
describeEachEngine(
  'gateway processes sharing one database',
  (databaseEnv) => {
    let sandbox: SandboxHandle;
    let shared: Record<string, string>;
    const clients: Client[] = [];
    const envFor = (extra: Record<string, string> = {}) => envOf(shared, extra);

    beforeAll(async () => {
      knownSecrets.add(TOKEN);
      ({ sandbox, env: shared } = await sharedProvider(databaseEnv(), {
        settleMs: 1000,
        callbackRetryBaseMs: 50,
        latencyMs: 200,
      }));
    });

    afterAll(async () => {
      await Promise.all(clients.map(async (c) => c.dispose()));
      await sandbox.close();
    });

    it('a mutation on A, its callback delivered to B, and the subscriber on C gets the final status once', async () => {
      const b = await launchGateway(envFor());
      // A tells the provider to call back at B's address, as a load balancer might route it.
      const a = await launchGateway(envFor({ PUBLIC_URL: b.url }));
      const c = await launchGateway(envFor());
      const onC = wsClient(c.graphqlUrl, AUTH);
      clients.push(onC);
      try {
        const input = mobileInput();
        const sub = subscribe<{ disbursementUpdated: PayoutRow }>(onC, WATCH, { referenceId: input.referenceId });
        // C's watcher is live (C listens to the database) before anything happens on A.
        await subscriptionsLive(c, 1);
        const created = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(
          a.graphqlUrl,
          CREATE_MOBILE,
          { input },
          AUTH,
        );
        expect(created.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
        await sub.completed;
        expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
        // B's log line crosses a pipe and may trail the event C already got.
        const receivedOnB = new RegExp(`${input.referenceId as string}.*"msg":"callback received"`);
        await eventually(() => (receivedOnB.test(b.output()) ? true : undefined));
        expect(a.output()).not.toMatch(/callback received/);
      } finally {
        await Promise.all([a.stop(), b.stop(), c.stop()]);
      }
    }, 60_000);

    it('concurrent identical mutations spread over A and B make one provider call', async () => {
      const a = await launchGateway(envFor());
      const b = await launchGateway(envFor());
      try {
        const input = mobileInput();
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            gql<{ createMobileMoneyDisbursement: PayoutRow }>(
              (i % 2 ? a : b).graphqlUrl,
              CREATE_MOBILE,
              { input },
              AUTH,
            ),
          ),
        );
        expect(sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
        expect(new Set(answers.map((x) => x.data?.createMobileMoneyDisbursement.identifier)).size).toBe(1);
        expect(answers.every((x) => x.errors === undefined)).toBe(true);
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    }, 60_000);

    it('a restarted replica keeps serving the records and claims made before', async () => {
      const first = await launchGateway(envFor());
      const input = mobileInput({ accountNumber: '260971234222' });
      const created = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(
        first.graphqlUrl,
        CREATE_MOBILE,
        { input },
        AUTH,
      );
      expect(await first.stop()).toBe(0);
      const again = await launchGateway(envFor());
      try {
        const read = await gql<{ disbursement: PayoutRow }>(again.graphqlUrl, QUERY, { r: input.referenceId }, AUTH);
        const identifier = created.data?.createMobileMoneyDisbursement.identifier;
        expect(read.data?.disbursement).toEqual({ referenceId: input.referenceId, status: 'PENDING', identifier });
        const retry = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(
          again.graphqlUrl,
          CREATE_MOBILE,
          { input },
          AUTH,
        );
        expect(retry.data?.createMobileMoneyDisbursement.identifier).toBe(identifier);
        const conflict = await gql(again.graphqlUrl, CREATE_MOBILE, { input: { ...input, amount: '1' } }, AUTH);
        expect(conflict.errors?.[0].extensions?.code).toBe('REFERENCE_CONFLICT');
        expect(sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
      } finally {
        await again.stop();
      }
    }, 60_000);
  },
  { needs: ['replicas'] },
);
