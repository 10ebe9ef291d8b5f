import { ChildProcess } from 'node:child_process';
import { GatewayProcess, launchGateway, runToExit } from '../support/process';
import { CREATE_MOBILE, gql, mobileInput } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { WATCH } from '../support/fixtures';

let gateway: GatewayProcess;
let child: ChildProcess;
let output = '';

/** The new user's path: `npm start` with no configuration at all serves payouts against the embedded sandbox. */
beforeAll(async () => {
  gateway = await launchGateway({ PORT: '0', SANDBOX_PORT: '0', SANDBOX_SETTLE_MS: '100' });
  child = gateway.child;
  output = gateway.output();
}, 60_000);

const graphqlUrl = () => gateway.graphqlUrl;

describe('npm start with no configuration', () => {
  it('prints the sandbox address and one ready line', () => {
    expect(output).toMatch(/embedded sandbox provider at http:\/\/127\.0\.0\.1:\d+/);
    expect(output.match(/ready: /g)).toHaveLength(1);
  });

  it('serves a payout mutation and the health check', async () => {
    const res = await gql<{ createMobileMoneyDisbursement: { status: string } }>(graphqlUrl(), CREATE_MOBILE, {
      input: mobileInput(),
    });
    expect(res.errors).toBeUndefined();
    expect(res.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    const health = await fetch(graphqlUrl().replace('/graphql', '/healthz'));
    expect(health.status).toBe(200);
  });

  it('serves the Apollo Sandbox landing page to a browser at GET /graphql', async () => {
    const res = await fetch(graphqlUrl(), { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/Apollo Sandbox|embeddable-sandbox/i);
  });

  it('exits 0 on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('graceful shutdown on SIGTERM', () => {
  it('answers every in-flight mutation, closes subscribers with 1001 and exits 0', async () => {
    // Each provider answer takes 1.5 s, so mutations are surely in flight when the signal lands.
    const run = await launchGateway({
      PORT: '0',
      SANDBOX_PORT: '0',
      SANDBOX_LATENCY_MS: '1500',
      SANDBOX_SETTLE_MS: '600000',
    });
    const watched = mobileInput({ accountNumber: '260971234222' });
    await gql(run.graphqlUrl, CREATE_MOBILE, { input: watched });
    const client = wsClient(run.graphqlUrl);
    const closed = new Promise<number>((resolve) =>
      client.on('closed', (event) => resolve((event as { code: number }).code)),
    );
    const watcher = subscribe(client, WATCH, {
      referenceId: watched.referenceId,
    });
    await watcher.waitFor(1);

    const inFlight = Array.from({ length: 5 }, () =>
      gql<{ createMobileMoneyDisbursement: { status: string } }>(run.graphqlUrl, CREATE_MOBILE, {
        input: mobileInput(),
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    const exited = run.stop();

    const answers = await Promise.all(inFlight);
    expect(answers.map((a) => a.data?.createMobileMoneyDisbursement.status)).toEqual([
      'PENDING',
      'PENDING',
      'PENDING',
      'PENDING',
      'PENDING',
    ]);
    expect(await closed).toBe(1001);
    expect(await exited).toBe(0);
    expect(run.output()).toMatch(/"msg":"stopped"/);
    await client.dispose();
  }, 60_000);
});

describe('a bad setting', () => {
  it('stops startup with one line naming it', () => {
    const { status, stderr } = runToExit({ PORT: 'eighty' });
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/PORT/);
  });

  it('refuses open access against a real provider', () => {
    const { stderr } = runToExit({ UPSTREAM_BASE_URL: 'https://provider.invalid', MERCHANT_API_KEY: 'k-123' });
    expect(stderr).toMatch(/CLIENT_TOKENS/);
    expect(stderr).not.toContain('k-123');
  });
});
