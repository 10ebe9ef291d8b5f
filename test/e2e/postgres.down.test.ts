import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { launchGateway } from '../support/process';
import { describeOwnPostgres, OwnPostgres, startOwnPostgres } from '../support/postgres';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';
import { PayoutRow } from '../support/fixtures';

const TOKEN = 'tok_replica_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** The settings of a gateway process over `shared`. */
const envOf = (shared: Record<string, string>) => ({
  ...shared,
  PORT: '0',
  CLIENT_TOKENS: TOKEN,
  CLIENT_RATE_LIMIT_PER_MIN: '0',
  RECONCILE_PENDING_AFTER_MS: '600000',
});

/** One gateway process over a PostgreSQL server of the test's own, which the test stops as a crash would and starts again. */
describeOwnPostgres('a gateway process while its PostgreSQL is down', () => {
  let server: OwnPostgres;
  let sandbox: SandboxHandle;
  let shared: Record<string, string>;

  beforeAll(async () => {
    knownSecrets.add(TOKEN);
    server = await startOwnPostgres();
    ({ sandbox, env: shared } = await sharedProvider(
      { DATABASE_URL: server.url },
      { settleMs: 1000, callbackRetryBaseMs: 50 },
    ));
  }, 60_000);

  afterAll(async () => {
    await sandbox.close();
    await server.destroy();
  });

  it('is not ready, answers a create SERVICE_UNAVAILABLE without sending it, and recovers by itself', async () => {
    const gw = await launchGateway(envOf(shared));
    try {
      await server.stop('immediate');
      const ready = await eventually(async () => {
        const res = await fetch(`${gw.url}/readyz`);
        return res.status === 503 ? ((await res.json()) as { checks: Record<string, boolean> }) : undefined;
      });
      expect(ready.checks.store).toBe(false);
      const before = sandbox.stats().createRequests;
      const input = mobileInput();
      const refused = await gql(gw.graphqlUrl, CREATE_MOBILE, { input }, AUTH);
      expect(refused.errors?.[0].extensions?.code).toBe('SERVICE_UNAVAILABLE');
      expect(sandbox.stats().createRequests).toBe(before);

      await server.start();
      await eventually(async () => ((await fetch(`${gw.url}/readyz`)).status === 200 ? true : undefined), 100, 100);
      const served = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(
        gw.graphqlUrl,
        CREATE_MOBILE,
        { input },
        AUTH,
      );
      expect(served.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
      expect(sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
    } finally {
      await gw.stop();
    }
  }, 60_000);
});
