import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { startOtlpReceiver, OtlpReceiver, ReceivedSpan } from '../support/otlp';
import { GatewayProcess, launchGateway } from '../support/process';
import { describeEachEngine } from '../support/modes';
import { bankInput, eventually, gql, knownSecrets, mobileInput } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

/** Waits until the gateway counts `count` live subscriptions (its own metric). */
async function subscriptionsLive(url: string, count: number): Promise<void> {
  await eventually(async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(/^gateway_subscriptions_active (\d+)/m.exec(text)?.[1] ?? 0) >= count ? true : undefined;
  });
}

const CREATE_MOBILE = `mutation CreateMobileMoneyDisbursement($input: MobileMoneyDisbursementInput!) {
  createMobileMoneyDisbursement(input: $input) { referenceId status }
}`;
const CREATE_BANK = `mutation CreateBankDisbursement($input: BankDisbursementInput!) {
  createBankDisbursement(input: $input) { referenceId status }
}`;
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * On PostgreSQL, `env` with a password in DATABASE_URL that no span or log line may show: the test server trusts
 * local connections, so it never asks for it.
 */
function withPassword(env: Record<string, string>, password: string): Record<string, string> {
  if (!env.DATABASE_URL.startsWith('postgres')) return env;
  const url = new URL(env.DATABASE_URL);
  url.password = password;
  return { ...env, DATABASE_URL: url.toString() };
}

/** A PostgreSQL span's statement text, under either semantic-convention version's name. */
const statementOf = (span: ReceivedSpan) => String(span.attributes['db.query.text'] ?? span.attributes['db.statement']);

/** Whether a span is a PostgreSQL statement's (instrumentation-pg, either semantic-convention version). */
const isPostgres = (span: ReceivedSpan) =>
  span.kind === CLIENT && [span.attributes['db.system'], span.attributes['db.system.name']].includes('postgresql');

describeEachEngine('OpenTelemetry traces exported to a real OTLP/HTTP receiver', (storeEnv) => {
  const token = hex(24);
  const dbPassword = `pw-${hex(12)}`;
  /** The referenceIds this block's payouts were created with. */
  const created: string[] = [];
  let receiver: OtlpReceiver;
  let gateway: GatewayProcess;
  let relayTarget: Server;
  let relayUrl: string;

  beforeAll(async () => {
    knownSecrets.add(dbPassword);
    receiver = await startOtlpReceiver();
    // The client's own endpoint, to which the final status of a bank payout is relayed.
    relayTarget = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => relayTarget.listen(0, '127.0.0.1', resolve));
    relayUrl = `http://127.0.0.1:${(relayTarget.address() as AddressInfo).port}/hooks/payouts`;
    gateway = await launchGateway({
      PORT: '0',
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      SANDBOX_SETTLE_MS: '200',
      CLIENT_TOKENS: token,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'payout-gateway-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...withPassword(storeEnv(), dbPassword),
    });
  }, 60_000);

  afterAll(async () => {
    await gateway.stop();
    await receiver.close();
    await new Promise<void>((resolve) => relayTarget.close(() => resolve()));
  });

  const onPostgres = () => storeEnv().DATABASE_URL.startsWith('postgres');
  const spansOf = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
  const linkedTo = (span: ReceivedSpan, traceId: string) => span.links.some((l) => l.traceId === traceId);

  it('links create → provider call → callback → publish in one story, under the client traceparent', async () => {
    const traceId = hex(16);
    const clientSpanId = hex(8);
    const input = mobileInput();
    created.push(input.referenceId as string);
    const res = await gql<{ createMobileMoneyDisbursement: { status: string } }>(
      gateway.graphqlUrl,
      CREATE_MOBILE,
      { input },
      { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${clientSpanId}-01` },
    );
    expect(res.errors).toBeUndefined();

    // The operation: a server span continuing the client's trace, named after the operation.
    const operation = await eventually(
      () => spansOf(traceId).find((s) => s.kind === SERVER && s.parentSpanId === clientSpanId),
      200,
    );
    expect(operation).toMatchObject({
      name: 'mutation CreateMobileMoneyDisbursement',
      service: 'payout-gateway-under-test',
      attributes: expect.objectContaining({
        'graphql.operation.name': 'CreateMobileMoneyDisbursement',
        'graphql.operation.type': 'mutation',
        'merchant.id': 'default',
      }),
    });
    // The provider calls: undici's client spans, children of the operation. Every send first asks whether the
    // provider already has the payout, then creates it.
    const providerCalls = spansOf(traceId).filter(
      (s) =>
        s.kind === CLIENT && s.parentSpanId === operation.spanId && s.attributes['http.request.method'] !== undefined,
    );
    expect(
      providerCalls
        .map((s) => `${String(s.attributes['http.request.method'])} ${String(s.attributes['url.path'])}`)
        .sort(),
    ).toEqual(['GET /api/v1/disbursements/check-status', 'POST /api/v1/disbursements/mobile-money']);

    // Minutes later in real life: the callback, a trace of its own linked to the create's operation.
    const callback = await eventually(
      () =>
        receiver.spans.find(
          (s) =>
            s.name === 'callback received' &&
            s.attributes['payout.reference_id'] === input.referenceId &&
            linkedTo(s, traceId),
        ),
      200,
    );
    expect(callback.links).toContainEqual(expect.objectContaining({ traceId, spanId: operation.spanId }));
    expect(callback.attributes).toMatchObject({ 'merchant.id': 'default', 'callback.result': 'applied' });
    const published = { 'payout.reference_id': input.referenceId, 'payout.status': 'SUCCESSFUL' };
    if (onPostgres()) {
      // Replicas hear a change as the notification its change-log entry sends at commit: the callback's trace holds
      // the statement that logs it, and the hand-off to this process's watchers follows when it is heard.
      await eventually(() =>
        receiver.spans.find(
          (s) => isPostgres(s) && s.traceId === callback.traceId && /INSERT INTO payout_changes\b/.test(statementOf(s)),
        ),
      );
      await eventually(() =>
        receiver.spans.find(
          (s) =>
            s.kind === PRODUCER &&
            s.attributes['payout.reference_id'] === published['payout.reference_id'] &&
            s.attributes['payout.status'] === published['payout.status'],
        ),
      );
    } else {
      // The publish to subscribers of the final status, inside the callback's trace.
      const publish = await eventually(() =>
        receiver.spans.find(
          (s) => s.kind === PRODUCER && s.parentSpanId === callback.spanId && s.traceId === callback.traceId,
        ),
      );
      expect(publish.attributes).toMatchObject(published);
    }

    // Log lines carry the trace: the operation's line has the client's trace id.
    const line = gateway
      .output()
      .split('\n')
      .find((l) => l.includes('"graphql operation"') && l.includes(traceId));
    expect(line).toContain(`"spanId":"${operation.spanId}"`);
  });

  it("gives a scheduled payout's send, at its time, a span linked to the create, with the provider call under it", async () => {
    const traceId = hex(16);
    const input = mobileInput({ sendAt: new Date(Date.now() + 1_500).toISOString() });
    created.push(input.referenceId as string);
    const res = await gql<{ createMobileMoneyDisbursement: { status: string } }>(
      gateway.graphqlUrl,
      CREATE_MOBILE,
      { input },
      { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    expect(res.data?.createMobileMoneyDisbursement.status).toBe('SCHEDULED');
    const send = await eventually(
      () =>
        receiver.spans.find(
          (s) => s.name === 'scheduled send' && s.attributes['payout.reference_id'] === input.referenceId,
        ),
      200,
    );
    expect(linkedTo(send, traceId)).toBe(true);
    expect(send.traceId).not.toBe(traceId);
    await eventually(() => receiver.spans.find((s) => s.parentSpanId === send.spanId && s.kind === CLIENT), 200);
  });

  it('gives each relay attempt a span linked to the create', async () => {
    const traceId = hex(16);
    const input = bankInput({ callbackUrl: relayUrl });
    created.push(input.referenceId as string);
    const res = await gql(
      gateway.graphqlUrl,
      CREATE_BANK,
      { input },
      { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    expect(res.errors).toBeUndefined();
    const attempt = await eventually(
      () =>
        receiver.spans.find(
          (s) => s.name === 'relay attempt' && s.attributes['payout.reference_id'] === input.referenceId,
        ),
      200,
    );
    expect(linkedTo(attempt, traceId)).toBe(true);
    expect(attempt.attributes).toMatchObject({ 'relay.attempt': 1, 'http.response.status_code': 200 });
    // The POST itself, a child of the attempt, shows no query and no more than the path.
    const post = await eventually(() =>
      receiver.spans.find((s) => s.parentSpanId === attempt.spanId && s.kind === CLIENT),
    );
    expect(post.attributes['url.full']).toBe(relayUrl);
  });

  it('gives an operation over graphql-ws its span too, continuing a traceparent given in its extensions', async () => {
    const client = wsClient(gateway.graphqlUrl, { authorization: `Bearer ${token}` });
    const referenceId = `ws-${hex(8)}`;
    const watcher = subscribe(
      client,
      'subscription WatchDisbursement($r: ID!) { disbursementUpdated(referenceId: $r) { status } }',
      {
        r: referenceId,
      },
    );
    const traceId = hex(16);
    const clientSpanId = hex(8);
    const read = await new Promise<unknown>((resolve, reject) => {
      client.subscribe(
        {
          query: 'query GetDisbursement($r: ID!) { disbursement(referenceId: $r) { status } }',
          variables: { r: referenceId },
          extensions: { traceparent: `00-${traceId}-${clientSpanId}-01` },
        },
        { next: resolve, error: reject, complete: () => undefined },
      );
    });
    expect(read).toEqual({ data: { disbursement: null } });
    await subscriptionsLive(gateway.url, 1);
    watcher.dispose();
    await client.dispose();
    const span = await eventually(() => receiver.spans.find((s) => s.name === 'subscription WatchDisbursement'), 200);
    expect(span).toMatchObject({ kind: SERVER, attributes: expect.objectContaining({ 'merchant.id': 'default' }) });
    const query = await eventually(
      () => receiver.spans.find((s) => s.name === 'query GetDisbursement' && s.traceId === traceId),
      200,
    );
    expect(query.parentSpanId).toBe(clientSpanId);
    expect(JSON.stringify(span.attributes)).not.toContain(referenceId);
  });

  it('shows PostgreSQL statements as written, never their values (and none on the embedded file)', async () => {
    // Statements run inside operations: by now the creates' have been exported, or none on the embedded file.
    await eventually(() => (receiver.spans.some((s) => s.name === 'relay attempt') ? true : undefined), 200);
    const statements = receiver.spans.filter(isPostgres);
    if (!onPostgres()) {
      expect(statements).toEqual([]);
      return;
    }
    // The create's insert, as written: its values are placeholders.
    expect(statements.map(statementOf)).toContainEqual(
      expect.stringMatching(/INSERT INTO payouts\b[^]*VALUES \(\$1, \$2,/),
    );
    const shown = JSON.stringify(statements);
    expect(shown).not.toContain('db.postgresql.values');
    for (const referenceId of created) expect(shown).not.toContain(referenceId);
  });

  it('puts no token, key, callback path or account number in any span', async () => {
    await eventually(() => (receiver.spans.some((s) => s.name === 'relay attempt') ? true : undefined), 200);
    const everything = receiver.bodies.join('\n');
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of [token, dbPassword, 'sandbox-key', '260971234567', '0012345678', 'Supplier invoice'])
      expect(everything).not.toContain(secret);
    // The callback path token is the only credential of unsigned callbacks.
    expect(everything).not.toMatch(/\/callbacks\/(?!\[redacted\])/);
  });
});

describe('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf', () => {
  it('exports the same spans as OTLP/HTTP protobuf', async () => {
    const receiver = await startOtlpReceiver();
    const gateway = await launchGateway({
      PORT: '0',
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const res = await gql(gateway.graphqlUrl, 'query GetWalletBalance { walletBalance { amount } }');
      expect(res.errors).toBeUndefined();
      const body = await eventually(
        () => receiver.protobufBodies.find((b) => b.includes('query GetWalletBalance')),
        200,
      );
      expect(body.includes('graphql.operation.name')).toBe(true);
      expect(receiver.bodies).toEqual([]);
    } finally {
      await gateway.stop();
      await receiver.close();
    }
  }, 60_000);
});

describe('tracing off (no OTEL_ variable)', () => {
  it('never loads the OpenTelemetry SDK, exporter or instrumentations', () => {
    // What main.ts does, in a fresh process: start tracing from the settings, then load the gateway.
    const script = `
      const { loadConfig } = require('./dist/config.js');
      require('./dist/observability/tracing.start.js').startTracing(loadConfig({}).tracing).then((sdk) => {
        require('./dist/app.js');
        const loaded = Object.keys(require.cache).filter((p) => /@opentelemetry[\\\\/](sdk|exporter|instrumentation|resources)/.test(p));
        console.log(JSON.stringify({ sdk: sdk === undefined ? null : 'started', loaded: loaded.length }));
      });`;
    const output = execFileSync(process.execPath, ['-e', script], {
      cwd: join(__dirname, '..', '..'),
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(JSON.parse(output.toString())).toEqual({ sdk: null, loaded: 0 });
  });
});
