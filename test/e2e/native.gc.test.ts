import { GatewayProcess, launchGateway, workingFolder } from '../support/process';
import { CREATE_MOBILE, eventually, gql, mobileInput } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { WATCH } from '../support/fixtures';

/**
 * better-sqlite3 before 13 derived its statements from node::ObjectWrap, whose destructor on Node 24.19+ asks for the
 * current environment: a statement finalised by a collection that V8 runs as a task, outside any JavaScript call
 * (trace-gc: "Scavenge … task"), aborted the process with SIGABRT at a fresh start or a restart. npm start's young
 * generation (8 MiB halves) made that collection come at start nearly every time (3 of 3 runs of this test on
 * better-sqlite3 12.11.1 and Node 24.21). CI runs this on Node 22 and Node 24.
 */
const NPM_START_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=384'];
const env = {
  PORT: '0',
  SANDBOX_PORT: '0',
  SANDBOX_SETTLE_MS: '50',
  UPSTREAM_RATE_LIMIT_PER_MIN: '0',
  SANDBOX_RATE_LIMIT_PER_MIN: '0',
  CLIENT_RATE_LIMIT_PER_MIN: '0',
};

async function createAll(gateway: GatewayProcess, count: number): Promise<{ statuses: string[]; last: string }> {
  const inputs = Array.from({ length: count }, () => mobileInput());
  const statuses: string[] = [];
  for (let i = 0; i < inputs.length; i += 20) {
    const answers = await Promise.all(
      inputs
        .slice(i, i + 20)
        .map((input) =>
          gql<{ createMobileMoneyDisbursement: { status: string } }>(gateway.graphqlUrl, CREATE_MOBILE, { input }),
        ),
    );
    statuses.push(
      ...answers.map((a) => a.data?.createMobileMoneyDisbursement.status ?? String(a.errors?.[0]?.message)),
    );
  }
  return { statuses, last: String(inputs[inputs.length - 1].referenceId) };
}

async function stopCleanly(gateway: GatewayProcess): Promise<void> {
  expect(await gateway.stop()).toBe(0);
  expect(gateway.child.signalCode).toBeNull();
  expect(gateway.output()).not.toMatch(/Assertion failed|Native stack trace/);
}

describe('the gateway on the running Node line, with npm start’s heap settings', () => {
  it('starts fresh, answers creates and live updates, restarts on the same file, and exits 0 each time', async () => {
    const folder = workingFolder();
    const first = await launchGateway(env, folder, NPM_START_FLAGS);
    const { statuses, last } = await createAll(first, 300);
    expect(statuses).toEqual(statuses.map(() => 'PENDING'));
    // The current state comes first, then each change: the last payout's callback lands within moments.
    const client = wsClient(first.graphqlUrl);
    const watcher = subscribe<{ disbursementUpdated: { status: string } }>(client, WATCH, { referenceId: last });
    await eventually(() => watcher.events.find((e) => e.disbursementUpdated.status === 'SUCCESSFUL'));
    watcher.dispose();
    await client.dispose();
    await stopCleanly(first);

    const second = await launchGateway(env, folder, NPM_START_FLAGS);
    const again = await createAll(second, 100);
    expect(again.statuses).toEqual(again.statuses.map(() => 'PENDING'));
    await stopCleanly(second);
  }, 120_000);
});
