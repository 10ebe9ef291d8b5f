import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { GatewayProcess, launchGateway } from '../support/process';
import { describeEachEngine } from '../support/modes';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, gql, knownSecrets, mobileInput, subscriptionsLive } from '../support/stack';
import { subscribeOver, TRANSPORTS } from '../support/streams';

type Change = { cursor: string; disbursement: { referenceId: string; status: string } };
type Events = { disbursementEvents: Change };
const EVENTS = `subscription Events($after: String) { disbursementEvents(after: $after) { cursor disbursement { referenceId status } } }`;
const SETTLED = 50;
const TOKEN = 'tok_resume_client_0123456789abcdef';
const AUTH = `Bearer ${TOKEN}`;

/** Two gateway processes sharing one database: a subscriber leaves one and comes back on the other with its last cursor. */
describeEachEngine(
  'resuming disbursementEvents on another replica',
  (databaseEnv) => {
    let sandbox: SandboxHandle;
    let a: GatewayProcess;
    let b: GatewayProcess;

    beforeAll(async () => {
      knownSecrets.add(TOKEN);
      // Each payout's callback comes a second after its create: long after the create's answer is
      // written, even on a loaded machine, so its changes are PENDING then final. (A callback that beats
      // the answer makes it final at once, and the answer then adds to its history: final twice.)
      const shared = await sharedProvider(databaseEnv(), { settleMs: 1000, callbackRetryBaseMs: 50 });
      sandbox = shared.sandbox;
      const env = { ...shared.env, PORT: '0', CLIENT_RATE_LIMIT_PER_MIN: '0', CLIENT_TOKENS: TOKEN, LOG_LEVEL: 'info' };
      [a, b] = await Promise.all([launchGateway(env), launchGateway(env)]);
    });

    afterAll(async () => {
      await Promise.all([a.stop(), b.stop()]);
      await sandbox.close();
    });

    async function create(accountNumber = '260971234567'): Promise<string> {
      const input = mobileInput({ accountNumber });
      const res = await gql(a.graphqlUrl, CREATE_MOBILE, { input }, { authorization: AUTH });
      expect(res.errors).toBeUndefined();
      return input.referenceId as string;
    }

    it.each(TRANSPORTS)(
      'over %s: gets exactly the changes it missed, in order, once each, then live ones',
      async (transport) => {
        // Stays on A throughout: the order the store applied the changes in.
        const witness = subscribeOver<Events>(transport, a.graphqlUrl, EVENTS, {}, AUTH);
        const first = subscribeOver<Events>(transport, a.graphqlUrl, EVENTS, {}, AUTH);
        await subscriptionsLive(a, 2);
        const before = await create();
        await first.waitFor(2);
        const last = first.events[1].disbursementEvents;
        expect(last.disbursement).toMatchObject({ referenceId: before, status: 'SUCCESSFUL' });
        await first.close();

        const missed = [];
        for (let i = 0; i < SETTLED; i += 1) missed.push(await create(i % 5 === 0 ? '260971234000' : '260971234567'));
        await witness.waitFor(2 + 2 * SETTLED);

        const resumed = subscribeOver<Events>(transport, b.graphqlUrl, EVENTS, { after: last.cursor }, AUTH);
        await resumed.waitFor(2 * SETTLED);
        const expected = witness.events.slice(2).map((e) => e.disbursementEvents);
        expect(resumed.events.map((e) => e.disbursementEvents)).toEqual(expected);
        expect(new Set(expected.map((c) => c.disbursement.referenceId))).toEqual(new Set(missed));
        for (const referenceId of missed) {
          const statuses = expected
            .filter((c) => c.disbursement.referenceId === referenceId)
            .map((c) => c.disbursement.status);
          expect(statuses).toEqual(['PENDING', missed.indexOf(referenceId) % 5 === 0 ? 'FAILED' : 'SUCCESSFUL']);
        }

        const after = await create();
        await resumed.waitFor(2 * SETTLED + 2);
        expect(resumed.events.slice(2 * SETTLED).map((e) => e.disbursementEvents.disbursement)).toMatchObject([
          { referenceId: after, status: 'PENDING' },
          { referenceId: after, status: 'SUCCESSFUL' },
        ]);
        expect([...witness.errors, ...resumed.errors]).toEqual([]);
        await Promise.all([witness.close(), resumed.close()]);
      },
      60_000,
    );
  },
  { needs: ['replicas'] },
);
