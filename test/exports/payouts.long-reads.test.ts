import { ChildProcess, spawn } from 'node:child_process';
import { get, IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { describeEachEngine } from '../support/modes';
import { seedPayouts } from '../support/seed';
import { capturedLogs, CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';

jest.setTimeout(60_000);

/** Enough rows for the export to take a hundred pages of 500; seeded in one statement. */
const ROWS = 50_000;
const FROM = Date.parse('2026-01-01T00:00:00Z');
const QUERY = 'from=2025-12-01T00:00:00Z&to=2026-03-01T00:00:00Z';

/**
 * A client in a process of its own reading the export as fast as it comes (as one on another
 * machine does: the gateway's socket never fills), printing `status <code>` then `rows <count>`.
 */
const FAST_READER = `
const http = require('node:http');
http.get(process.argv[1], (res) => {
  console.log('status ' + res.statusCode);
  let rows = 0;
  res.on('data', (chunk) => { for (const byte of chunk) if (byte === 10) rows += 1; });
  res.on('end', () => console.log('rows ' + rows));
});`;

describeEachEngine('long exports', (env) => {
  let stack: Stack;
  let exportUrl: string;
  const children: ChildProcess[] = [];
  const responses: IncomingMessage[] = [];

  beforeAll(async () => {
    stack = await startStack({ env: env() });
    exportUrl = `${stack.gateway.url}/exports/payouts.csv?${QUERY}`;
    // The open-access stack serves one merchant, `default`.
    await seedPayouts({ databaseUrl: env().DATABASE_URL, merchantId: 'default', count: ROWS, from: FROM });
  });

  afterEach(async () => {
    for (const response of responses.splice(0)) response.destroy();
    await Promise.all(
      children.splice(0).map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill();
          }),
      ),
    );
  });

  afterAll(async () => {
    await stack?.close();
  });

  const exportedLines = () => capturedLogs.filter((line) => line.includes('payouts exported')).length;

  /** A download in this process whose body nobody reads yet: its export waits, holding its place. */
  function held(): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      get(exportUrl, (response) => {
        response.pause();
        responses.push(response);
        resolve(response);
      }).once('error', reject);
    });
  }

  /** The fast reader's lines, in order, as they come. */
  function fastReader(): AsyncIterator<string> {
    const child = spawn(process.execPath, ['-e', FAST_READER, exportUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    return createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }

  it('answers a create and /healthz while an export read at full speed is still streaming', async () => {
    const before = exportedLines();
    const reader = fastReader();
    expect((await reader.next()).value).toBe('status 200');

    const [created, health] = await Promise.all([
      gql<{ createMobileMoneyDisbursement: { status: string } }>(stack.graphqlUrl, CREATE_MOBILE, {
        input: mobileInput(),
      }),
      fetch(`${stack.gateway.url}/healthz`),
    ]);
    // Both answered before the export wrote its last row (its log line comes once it has).
    expect(exportedLines()).toBe(before);
    expect(created.errors).toBeUndefined();
    expect(created.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    expect(health.status).toBe(200);

    // The header, and every payout: the one just created is after the window.
    expect((await reader.next()).value).toBe(`rows ${ROWS + 1}`);
    expect(exportedLines()).toBe(before + 1);
  });

  it('sums a statement over the whole large window, read in slices, each payout once', async () => {
    const statement = await gql<{ payoutStatement: { lines: unknown[] } }>(
      stack.graphqlUrl,
      `query S($from: DateTimeISO!, $to: DateTimeISO!) { payoutStatement(from: $from, to: $to) { lines { currency status count amount } } }`,
      { from: '2025-12-01T00:00:00Z', to: '2026-03-01T00:00:00Z' },
    );
    expect(statement.errors).toBeUndefined();
    expect(statement.data?.payoutStatement.lines).toEqual([
      { currency: 'ZMW', status: 'SUCCESSFUL', count: ROWS, amount: (ROWS * 10.5).toFixed(2) },
    ]);
  });

  it('runs two exports per merchant at once, refuses a third with RATE_LIMITED, and frees a place when a client leaves', async () => {
    const first = await held();
    const second = await held();
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);

    const refused = await fetch(exportUrl);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(body.errors[0].message).toMatch(/at most 2 exports at once/i);

    // The first client goes away: its place is free once the gateway has ended that export.
    const before = exportedLines();
    first.destroy();
    await eventually(() => (exportedLines() > before ? true : undefined));
    const third = await held();
    expect(third.statusCode).toBe(200);
  });
});
