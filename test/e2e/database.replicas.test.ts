import { randomUUID } from 'node:crypto';
import { Client } from 'graphql-ws';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { GatewayProcess, launchGateway } from '../support/process';
import { describeEachEngine } from '../support/modes';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput, subscriptionsLive } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

type Page = { totalCount: number | null; edges: { node: { referenceId: string; status: string } }[] };
const TOKEN = 'tok_db_replicas_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const HISTORY = `query H($first: Int, $filter: DisbursementFilter) {
  disbursementHistory(first: $first, filter: $filter) { totalCount edges { node { referenceId status } } }
}`;

/** Two real gateway processes over one fresh database, as replicas behind a load balancer. */
describeEachEngine(
  'two gateway processes sharing a database',
  (databaseEnv) => {
    let sandbox: SandboxHandle;
    let a: GatewayProcess;
    let b: GatewayProcess;
    let onA: Client;

    beforeAll(async () => {
      knownSecrets.add(TOKEN);
      const shared = await sharedProvider(databaseEnv(), { settleMs: 300, callbackRetryBaseMs: 50 });
      sandbox = shared.sandbox;
      const env = {
        ...shared.env,
        PORT: '0',
        CLIENT_TOKENS: TOKEN,
        CLIENT_RATE_LIMIT_PER_MIN: '0',
        // No status checks of PENDING payouts: a final status can only come from a callback.
        RECONCILE_PENDING_AFTER_MS: '600000',
      };
      b = await launchGateway(env);
      // The provider calls back at B for everything A creates, as a load balancer might route it.
      a = await launchGateway({ ...env, PUBLIC_URL: b.url });
      onA = wsClient(a.graphqlUrl, AUTH);
    }, 60_000);

    afterAll(async () => {
      await onA?.dispose();
      await Promise.all([a?.stop(), b?.stop()]);
      await sandbox?.close();
    });

    const create = (on: GatewayProcess, input: Record<string, unknown>) =>
      gql<{ createMobileMoneyDisbursement: PayoutRow }>(on.graphqlUrl, CREATE_MOBILE, { input }, AUTH);

    it('ten identical creates spread over both replicas reach the provider once, and all get its answer', async () => {
      const input = mobileInput();
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 ? a : b, input)));
      expect(answers.map((x) => x.errors)).toEqual(Array(10).fill(undefined));
      expect(sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
      expect(sandbox.stats().payoutsByReferenceId[input.referenceId as string]).toBe(1);
      const identifiers = new Set(answers.map((x) => x.data?.createMobileMoneyDisbursement.identifier));
      expect(identifiers.size).toBe(1);
      expect([...identifiers][0]).toEqual(expect.any(String));
    });

    it('a subscriber on A sees the final status of a callback only B received', async () => {
      const input = mobileInput();
      const ref = input.referenceId as string;
      const sub = subscribe<{ disbursementUpdated: PayoutRow }>(onA, WATCH, { referenceId: ref });
      await subscriptionsLive(a, 1);
      expect((await create(a, input)).data?.createMobileMoneyDisbursement.status).toBe('PENDING');
      await sub.completed;
      expect(sub.errors).toEqual([]);
      expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
      // B's log line crosses a pipe and may trail the event A already passed on.
      const receivedOnB = new RegExp(`${ref}.*"msg":"callback received"`);
      await eventually(() => (receivedOnB.test(b.output()) ? true : undefined));
      expect(a.output()).not.toMatch(/callback received/);
    });

    it('24 payouts of three outcomes over both replicas: exact totalCount per status filter on each', async () => {
      const prefix = `count-${randomUUID()}-`;
      const outcomes = { SUCCESSFUL: '260971234567', FAILED: '260971234000', PENDING: '260971234222' } as const;
      const inputs = Object.values(outcomes).flatMap((accountNumber) =>
        Array.from({ length: 8 }, (_, i) =>
          mobileInput({ referenceId: `${prefix}${accountNumber}-${i}`, accountNumber }),
        ),
      );
      const created = await Promise.all(inputs.map((input, i) => create(i % 2 ? a : b, input)));
      expect(created.map((x) => x.data?.createMobileMoneyDisbursement.status)).toEqual(Array(24).fill('PENDING'));

      const page = async (on: GatewayProcess, first: number, status?: string[]) =>
        (
          await gql<{ disbursementHistory: Page }>(
            on.graphqlUrl,
            HISTORY,
            { first, filter: { referenceIdPrefix: prefix, ...(status && { status }) } },
            AUTH,
          )
        ).data?.disbursementHistory;
      // Every callback delivered: no payout of the two settling outcomes is still PENDING.
      await eventually(async () => {
        const all = await page(a, 50);
        const settling = all?.edges.filter((e) => !e.node.referenceId.includes(outcomes.PENDING)) ?? [];
        return settling.length === 16 && settling.every((e) => e.node.status !== 'PENDING') ? true : undefined;
      });

      const expected: [string[] | undefined, number][] = [
        [undefined, 24],
        [['SUCCESSFUL'], 8],
        [['FAILED'], 8],
        [['PENDING'], 8],
        [['SUCCESSFUL', 'FAILED'], 16],
        [['UNKNOWN'], 0],
      ];
      for (const on of [a, b]) {
        for (const [status, count] of expected) {
          // A page smaller than the count still counts them all.
          expect([status, (await page(on, 5, status))?.totalCount]).toEqual([status, count]);
          const whole = await page(on, 50, status);
          expect([status, whole?.edges.length]).toEqual([status, count]);
          for (const { node } of whole?.edges ?? []) {
            const outcome = Object.entries(outcomes).find(([, account]) => node.referenceId.includes(account))?.[0];
            expect([node.referenceId, node.status]).toEqual([node.referenceId, outcome]);
          }
        }
      }
    });
  },
  { needs: ['replicas'] },
);
