import { Client } from 'graphql-ws';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { GatewayProcess, launchGateway } from '../support/process';
import { describeOwnPostgres, OwnPostgres, startOwnPostgres } from '../support/postgres';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput, subscriptionsLive } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

type Readiness = { checks: Record<string, boolean> };
const TOKEN = 'tok_db_outage_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
/** The server trusts every local connection, so any password connects: this one is there to be kept out of logs. */
const PASSWORD = 'pw-Outage-Secret-4b1e8d';

/** Two gateway processes on a PostgreSQL server of the test's own, stopped as in a crash and started again. */
describeOwnPostgres('two gateway processes while their PostgreSQL server is down', () => {
  let server: OwnPostgres;
  let sandbox: SandboxHandle;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const clients: Client[] = [];

  beforeAll(async () => {
    knownSecrets.add(TOKEN);
    knownSecrets.add(PASSWORD);
    server = await startOwnPostgres();
    const url = server.url.replace('postgres@', `postgres:${PASSWORD}@`);
    const shared = await sharedProvider({ DATABASE_URL: url }, { settleMs: 300, callbackRetryBaseMs: 50 });
    sandbox = shared.sandbox;
    const env = {
      ...shared.env,
      PORT: '0',
      CLIENT_TOKENS: TOKEN,
      CLIENT_RATE_LIMIT_PER_MIN: '0',
      RECONCILE_PENDING_AFTER_MS: '600000',
    };
    b = await launchGateway(env);
    a = await launchGateway({ ...env, PUBLIC_URL: b.url });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map(async (c) => c.dispose()));
    await Promise.all([a?.stop(), b?.stop()]);
    await sandbox?.close();
    await server?.destroy();
  });

  const create = (on: GatewayProcess, input: Record<string, unknown>) =>
    gql<{ createMobileMoneyDisbursement: PayoutRow }>(on.graphqlUrl, CREATE_MOBILE, { input }, AUTH);
  const readiness = async (on: GatewayProcess) => {
    const res = await fetch(`${on.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Readiness };
  };
  const sentOf = (input: Record<string, unknown>) =>
    sandbox.stats().createRequestsByReferenceId[String(input.referenceId)];

  it('answers SERVICE_UNAVAILABLE and sends nothing, reports not ready, and serves again by itself once it is back', async () => {
    expect((await create(a, mobileInput())).data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    const pids = [a.child.pid, b.child.pid];

    await server.stop('immediate');
    for (const on of [a, b]) {
      const down = await eventually(async () => {
        const ready = await readiness(on);
        return ready.status === 503 ? ready.body : undefined;
      });
      expect(down.checks.store).toBe(false);
    }
    const refused = [mobileInput(), mobileInput()];
    const sentBefore = sandbox.stats().createRequests;
    const answers = await Promise.all([create(a, refused[0]), create(b, refused[1])]);
    expect(answers.map((x) => x.errors?.[0]?.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE']);
    expect(answers.map((x) => x.data?.createMobileMoneyDisbursement ?? null)).toEqual([null, null]);
    expect(sandbox.stats().createRequests).toBe(sentBefore);
    for (const on of [a, b]) expect(on.output()).toMatch(/"msg":"database unavailable: answering SERVICE_UNAVAILABLE"/);

    await server.start();
    for (const on of [a, b]) {
      await eventually(async () => ((await readiness(on)).status === 200 ? true : undefined), 100, 100);
    }
    // The same processes: nothing was restarted.
    expect([a.child.pid, b.child.pid]).toEqual(pids);
    expect([a.child.exitCode, b.child.exitCode]).toEqual([null, null]);

    // The refused creates now go out, each for the first time: had either left before, the provider would count two.
    const retried = await Promise.all([create(b, refused[0]), create(a, refused[1])]);
    expect(retried.map((x) => x.data?.createMobileMoneyDisbursement.status)).toEqual(['PENDING', 'PENDING']);
    expect(refused.map(sentOf)).toEqual([1, 1]);

    // Changes flow between the replicas again: a callback B receives reaches a subscriber on each.
    const input = mobileInput();
    const subs = [a, b].map((on) => {
      const client = wsClient(on.graphqlUrl, AUTH);
      clients.push(client);
      return subscribe<{ disbursementUpdated: PayoutRow }>(client, WATCH, { referenceId: input.referenceId });
    });
    await Promise.all([subscriptionsLive(a, 1), subscriptionsLive(b, 1)]);
    expect((await create(a, input)).data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    for (const sub of subs) {
      await sub.completed;
      expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    }
    for (const on of [a, b]) expect(on.output()).not.toContain(PASSWORD);
  }, 60_000);
});
