import { setTimeout as sleep } from 'node:timers/promises';
import { describeOwnPostgres, OwnPostgres, startOwnPostgres } from '../support/postgres';
import {
  capturedLogs,
  CREATE_MOBILE,
  eventually,
  gql,
  knownSecrets,
  mobileInput,
  Stack,
  startStack,
} from '../support/stack';

const TOKEN = 'tok_outage_logs_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
/** What docs/operations.md promises for each repeated error line: at most five a minute. */
const LINES_PER_MINUTE = 5;
/** Rounds of traffic while the server is down: each a create, a read and /readyz. */
const ROUNDS = 40;

interface LogLine {
  level: number;
  msg: string;
}

/** The warn and error lines written since `from`, in order. */
function errorLinesSince(from: number): LogLine[] {
  return capturedLogs
    .slice(from)
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.level >= 40);
}

describeOwnPostgres('error lines while the PostgreSQL server is down', () => {
  let server: OwnPostgres;
  let stack: Stack;

  beforeAll(async () => {
    knownSecrets.add(TOKEN);
    server = await startOwnPostgres();
    // Every background loop polls often, so in a short outage each would repeat its line many times.
    stack = await startStack({
      env: {
        DATABASE_URL: server.url,
        CLIENT_TOKENS: TOKEN,
        RECONCILE_INTERVAL_MS: '100',
        RELAY_POLL_INTERVAL_MS: '100',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await server?.destroy();
  });

  it('writes each kind of error line at most five times a minute, its first one included', async () => {
    const healthy = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() }, AUTH);
    expect(healthy.errors).toBeUndefined();

    const from = capturedLogs.length;
    const started = Date.now();
    await server.stop('immediate');
    for (let round = 0; round < ROUNDS; round += 1) {
      const [created] = await Promise.all([
        gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() }, AUTH),
        gql(stack.graphqlUrl, '{ disbursement(referenceId: "nothing") { status } }', {}, AUTH),
        fetch(`${stack.gateway.url}/readyz`).then((res) => res.text()),
      ]);
      expect(created.errors?.[0].extensions?.code).toBe('SERVICE_UNAVAILABLE');
      await sleep(100);
    }
    const lines = errorLinesSince(from);
    // The rate is checked against the outage as long as it lasted here, however long that was.
    const minutes = Math.ceil((Date.now() - started) / 60_000);

    const counts = new Map<string, number>();
    for (const line of lines) counts.set(line.msg, (counts.get(line.msg) ?? 0) + 1);
    const over = [...counts].filter(([, count]) => count > LINES_PER_MINUTE * minutes);
    expect(over).toEqual([]);
    // The first line of each kind is written: the outage is in the log.
    expect([...counts.keys()]).toEqual(
      expect.arrayContaining([
        'database unavailable: answering SERVICE_UNAVAILABLE',
        'reconciler round failed',
        'reconciliation run step failed',
        'relay lease failed',
      ]),
    );

    await server.start();
    await eventually(async () => ((await fetch(`${stack.gateway.url}/readyz`)).status === 200 ? true : undefined));
  }, 60_000);
});
