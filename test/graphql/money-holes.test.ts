import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { App, startApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import {
  callbackBody,
  CREATE_MOBILE,
  DISBURSEMENT_FIELDS,
  eventually,
  gql,
  knownSecrets,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
} from '../support/stack';
import { sqliteFile } from '../support/sqlite.engine';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;

const read = async (url: string, referenceId: string) =>
  (await gql<{ disbursement: PayoutRow | null }>(url, QUERY, { referenceId })).data?.disbursement;

async function post(url: string, body: unknown, secret?: string): Promise<number> {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret) {
    const id = `msg_${randomUUID()}`;
    const ts = new Date();
    headers['webhook-id'] = id;
    headers['webhook-timestamp'] = String(Math.floor(ts.getTime() / 1000));
    headers['webhook-signature'] = new Webhook(secret).sign(id, ts, raw);
  }
  return (await fetch(url, { method: 'POST', headers, body: raw })).status;
}

const metric = async (gatewayUrl: string, name: string) =>
  Number(new RegExp(`^${name} (\\d+)`, 'm').exec(await (await fetch(`${gatewayUrl}/metrics`)).text())?.[1] ?? 0);

describe('a gateway started again', () => {
  let sandbox: SandboxHandle;
  const files: ReturnType<typeof sqliteFile>[] = [];
  let app: App | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, settleMs: 60_000, rateLimitPerMin: 0 });
  });
  const stop = async () => {
    await app?.close();
    app = undefined;
  };
  afterEach(stop);
  afterAll(async () => {
    await sandbox.close();
    for (const file of files) file.remove();
  });

  /** Starts a gateway on the embedded file `file` (a new one by default) and answers its GraphQL address. */
  async function start(file = sqliteFile()): Promise<{ url: string; file: ReturnType<typeof sqliteFile> }> {
    files.push(file);
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      UPSTREAM_BASE_URL: sandbox.url,
      MERCHANT_API_KEY: 'sandbox-key',
      LOG_LEVEL: 'silent',
      DATABASE_URL: file.url,
    });
    app = await startApp({ config, trustedProvider: true });
    for (const secret of app.gateway.secrets) knownSecrets.add(secret);
    return { url: `${app.gateway.url}/graphql`, file };
  }

  async function createOn(url: string, input: Record<string, unknown>): Promise<PayoutRow> {
    const first = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(url, CREATE_MOBILE, { input });
    expect(first.errors).toBeUndefined();
    return first.data!.createMobileMoneyDisbursement;
  }

  it('on the same embedded file: keeps the payout, and answers the retry from it without a second provider call', async () => {
    const before = await start();
    const input = mobileInput();
    const first = await createOn(before.url, input);
    await stop();
    const { url } = await start(before.file);
    expect(await read(url, input.referenceId as string)).toMatchObject({
      status: 'PENDING',
      identifier: first.identifier,
    });
    expect((await createOn(url, input)).identifier).toBe(first.identifier);
    expect(sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });

  it("on a database that lost the payout (a new one, a backup from before): answers the client's retry with the provider's payout (same identifier), never BAD_USER_INPUT", async () => {
    const input = mobileInput();
    const first = await createOn((await start()).url, input);
    await stop();
    const { url } = await start();
    expect(await read(url, input.referenceId as string)).toBeNull(); // this database knows nothing of it
    const retry = await createOn(url, input);
    expect(retry.identifier).toBe(first.identifier);
    expect((await read(url, input.referenceId as string))?.identifier).toBe(first.identifier);
    // A changed request under the same referenceId is a conflict, not "fix your input".
    const changed = await gql(url, CREATE_MOBILE, { input: { ...input, amount: '999' } });
    expect(changed.errors?.[0].extensions).toMatchObject({ code: 'REFERENCE_CONFLICT', fields: ['input.amount'] });
  });
});

describe('unsigned callbacks (no WEBHOOK_SECRET: the path token is the only credential)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_SECRET: '' }, sandbox: { webhookSecret: undefined, settleMs: 300 } });
  });
  afterAll(() => stack.close());

  it("never lets a forged orphan decide a create's answer", async () => {
    const referenceId = `forged-${randomUUID()}`;
    const forged = callbackBody(referenceId, 'Successful', { amount: 5, accountNumber: '260970000001' });
    expect(await post(stack.gateway.callbackUrl('default'), forged)).toBe(200);
    expect(await read(stack.graphqlUrl, referenceId)).toBeNull(); // the provider never saw it: not kept
    const input = mobileInput({ referenceId, amount: '900.00' });
    const res = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(res.errors).toBeUndefined();
    expect(res.data?.createMobileMoneyDisbursement).toMatchObject({ status: 'PENDING', amount: '900' });
    expect(stack.sandbox.stats().createRequestsByReferenceId[referenceId]).toBe(1);
  });

  it("never stores nor sends a forged SUCCESSFUL for a payout the provider keeps Pending, while the provider's own callback still lands", async () => {
    const held = mobileInput({ accountNumber: '260971234222' });
    expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input: held })).errors).toBeUndefined();
    const client = wsClient(stack.graphqlUrl);
    const watch = subscribe<{ disbursementUpdated: PayoutRow }>(client, WATCH, {
      referenceId: held.referenceId,
    });
    await watch.waitFor(1);
    await subscriptionsLive(stack, 1);
    const before = await metric(stack.gateway.url, 'gateway_callback_mismatches_total');
    expect(
      await post(stack.gateway.callbackUrl('default'), callbackBody(held.referenceId as string, 'Successful')),
    ).toBe(200);
    expect((await read(stack.graphqlUrl, held.referenceId as string))?.status).toBe('PENDING');
    expect(await metric(stack.gateway.url, 'gateway_callback_mismatches_total')).toBe(before + 1);

    // The provider's own unsigned callback for an ordinary payout is confirmed and applied.
    const paid = mobileInput();
    expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input: paid })).errors).toBeUndefined();
    await eventually(
      async () =>
        (await read(stack.graphqlUrl, paid.referenceId as string))?.status === 'SUCCESSFUL' ? true : undefined,
      200,
    );
    // Still nothing but PENDING for the held payout's subscriber, after the other payout's whole round trip.
    expect(watch.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING']);
    expect((await read(stack.graphqlUrl, held.referenceId as string))?.status).toBe('PENDING');
    watch.dispose();
    await client.dispose();
  });
});

describe('phantom callbacks', () => {
  it('cost at most one status check each, are not kept, and are never polled', async () => {
    const stack = await startStack({
      env: { RECONCILE_INTERVAL_MS: '50', RECONCILE_UNKNOWN_AFTER_MS: '100', RECONCILE_PENDING_AFTER_MS: '100' },
    });
    try {
      const before = stack.sandbox.stats().statusRequests;
      const ids = Array.from({ length: 60 }, () => `phantom-${randomUUID()}`);
      for (const id of ids)
        expect(await post(stack.gateway.callbackUrl('default'), callbackBody(id, 'Pending'), stack.webhookSecret)).toBe(
          200,
        );
      // Several rechecker rounds later, still at most one check each.
      await new Promise((r) => setTimeout(r, 600));
      expect(stack.sandbox.stats().statusRequests - before).toBeLessThanOrEqual(ids.length);
      expect(await read(stack.graphqlUrl, ids[0])).toBeNull();
    } finally {
      await stack.close();
    }
  });
});

describe('shutdown during a slow create', () => {
  it('answers the create OUTCOME_UNKNOWN instead of dropping its socket', async () => {
    const stack = await startStack({
      env: { UPSTREAM_TIMEOUT_MS: '20000' },
      sandbox: { slowCreateMs: 10_000 },
      createGraceMs: 100,
    });
    const input = mobileInput({ accountNumber: '260971234408' });
    const answer = gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    await eventually(() =>
      stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string] ? true : undefined,
    );
    await stack.close();
    const res = await answer;
    expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
  });
});

describe('per-merchant webhook secrets', () => {
  it("checks a callback with its path's merchant's secret, and refuses one signed for another merchant", async () => {
    const secretOf = () => `whsec_${randomBytes(24).toString('base64')}`;
    const [a, b] = [secretOf(), secretOf()];
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
    writeFileSync(
      file,
      JSON.stringify([
        { id: 'alpha', apiKey: 'sandbox-key', clientTokens: [`alpha-${randomUUID()}`], webhookSecret: a },
        { id: 'beta', apiKey: 'other-key', clientTokens: [`beta-${randomUUID()}`], webhookSecret: b },
      ]),
    );
    const stack = await startStack({
      env: { MERCHANTS_FILE: file },
      sandbox: { activeKeys: ['sandbox-key', 'other-key'] },
    });
    try {
      const body = callbackBody(`x-${randomUUID()}`, 'Successful');
      expect(await post(stack.gateway.callbackUrl('beta'), body, a)).toBe(401);
      expect(await post(stack.gateway.callbackUrl('beta'), body, stack.webhookSecret)).toBe(401);
      expect(await post(stack.gateway.callbackUrl('beta'), body, b)).toBe(200);
    } finally {
      await stack.close();
    }
  });
});
