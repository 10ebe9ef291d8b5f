import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { PayoutRow, WATCH } from '../support/fixtures';
import {
  callbackBody,
  capturedLogs,
  capturedResponses,
  CREATE_MOBILE,
  gql,
  knownSecrets,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
} from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const token = (name: string) => `tok_${name}_${randomUUID()}`;

const file = join(mkdtempSync(join(tmpdir(), 'merchants-reload-')), 'merchants.json');
const oldSecret = secret();
const newSecret = secret();
const keeper = token('keeper');
const leaver = token('leaver');
const shop = { id: 'shop', apiKey: 'sandbox-key', clientTokens: [keeper, leaver], webhookSecret: oldSecret };
const other = { id: 'other', apiKey: `key-other-${randomUUID()}`, clientTokens: [token('other')] };
const write = (merchants: unknown) => writeFileSync(file, JSON.stringify(merchants));
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

let stack: Stack;
beforeAll(async () => {
  write([shop, other]);
  stack = await startStack({ env: { MERCHANTS_FILE: file }, sandbox: { activeKeys: ['sandbox-key', other.apiKey] } });
  for (const s of [keeper, leaver, other.apiKey, ...other.clientTokens, oldSecret, newSecret]) knownSecrets.add(s);
});
afterAll(() => stack.close());

async function deliver(referenceId: string, signingSecret: string): Promise<number> {
  const raw = JSON.stringify(callbackBody(referenceId, 'Successful'));
  const id = `msg_${randomUUID()}`;
  const at = new Date();
  const res = await fetch(stack.gateway.callbackUrl('shop'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(signingSecret).sign(id, at, raw),
    },
    body: raw,
  });
  return res.status;
}

/** A payout of `shop` whose sandbox never calls back: the test delivers its callback. */
async function quietPayout(): Promise<string> {
  const input = mobileInput({ accountNumber: '260971234222' });
  expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input }, auth(keeper))).errors).toBeUndefined();
  return input.referenceId as string;
}

const ME = `query { walletBalance { currency } }`;
const codeOf = async (t: string) =>
  (await gql(stack.graphqlUrl, ME, {}, auth(t))).errors?.[0]?.extensions?.code as string | undefined;

describe('MERCHANTS_FILE reloaded without a restart', () => {
  it("rotates a merchant's webhookSecret: both trusted while both are listed, the old one refused once removed", async () => {
    expect(await deliver(await quietPayout(), oldSecret)).toBe(200);
    expect(await deliver(await quietPayout(), newSecret)).toBe(401);

    write([{ ...shop, webhookSecret: `${newSecret} ${oldSecret}` }, other]);
    expect(await stack.gateway.reloadMerchants()).toEqual({
      applied: true,
      changes: { added: [], changed: ['shop'], removed: [] },
    });
    expect(await deliver(await quietPayout(), newSecret)).toBe(200);
    expect(await deliver(await quietPayout(), oldSecret)).toBe(200);

    write([{ ...shop, webhookSecret: newSecret }, other]);
    expect((await stack.gateway.reloadMerchants()).applied).toBe(true);
    expect(await deliver(await quietPayout(), newSecret)).toBe(200);
    expect(await deliver(await quietPayout(), oldSecret)).toBe(401);
  });

  it('ends a removed token: UNAUTHENTICATED on its next request, its open subscription ended within 5 s', async () => {
    write([{ ...shop, webhookSecret: newSecret }, other]);
    await stack.gateway.reloadMerchants();
    const referenceId = await quietPayout();
    const client = wsClient(stack.graphqlUrl, auth(leaver));
    const watch = subscribe<{ disbursementUpdated: PayoutRow }>(client, WATCH, { referenceId });
    await watch.waitFor(1);
    await subscriptionsLive(stack, 1);

    write([{ ...shop, clientTokens: [keeper], webhookSecret: newSecret }, other]);
    const reloadedAt = Date.now();
    expect((await stack.gateway.reloadMerchants()).applied).toBe(true);
    await watch.completed.catch(() => undefined);
    expect(Date.now() - reloadedAt).toBeLessThan(5_000);
    expect(JSON.stringify(watch.errors)).toMatch(/UNAUTHENTICATED|no longer accepted|4403|Token revoked/);
    expect(await codeOf(leaver)).toBe('UNAUTHENTICATED');
    expect(await codeOf(keeper)).toBeUndefined();
    await client.dispose();
  });

  it('keeps serving with the previous merchants when the file is broken, and logs why without a secret', async () => {
    write([{ ...shop, clientTokens: [keeper], webhookSecret: newSecret }, other]);
    await stack.gateway.reloadMerchants();
    const newcomer = token('newcomer');
    knownSecrets.add(newcomer);
    writeFileSync(file, `[{"id": "shop", "apiKey": "sandbox-key", "clientTokens": ["${newcomer}"`);
    const unparsable = await stack.gateway.reloadMerchants();
    expect(unparsable).toMatchObject({
      applied: false,
      reason: expect.stringMatching(/MERCHANTS_FILE.*not valid JSON/),
    });
    write([{ ...shop, clientTokens: [keeper, newcomer], controls: { maxAmount: { ZMW: 'lots' } } }, other]);
    const invalid = await stack.gateway.reloadMerchants();
    expect(invalid).toMatchObject({ applied: false, reason: expect.stringMatching(/shop/) });
    // A webhook secret that is not whsec_ base64: refused naming the field, never repeating the value.
    const malformed = `not-whsec-${randomUUID()}`;
    knownSecrets.add(malformed);
    write([{ ...shop, clientTokens: [keeper, newcomer], webhookSecret: `${newSecret} ${malformed}` }, other]);
    const badSecret = await stack.gateway.reloadMerchants();
    expect(badSecret).toMatchObject({ applied: false, reason: expect.stringMatching(/webhookSecret must be whsec_/) });
    expect(JSON.stringify(badSecret)).not.toContain(malformed);
    expect(await codeOf(keeper)).toBeUndefined();
    expect(await codeOf(newcomer)).toBe('UNAUTHENTICATED');
    const lines = capturedLogs.join('').split('\n');
    expect(lines.filter((l) => l.includes('MERCHANTS_FILE not reloaded')).length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.includes('not valid JSON'))).toBe(true);
  });

  it('records each reload in the audit trail of the merchants it touched: the operator and the ids, never a secret', async () => {
    const added = { id: `new-${randomUUID().slice(0, 8)}`, apiKey: `key-${randomUUID()}`, clientTokens: [token('n')] };
    knownSecrets.add(added.apiKey).add(added.clientTokens[0]);
    write([{ ...shop, clientTokens: [keeper], webhookSecret: newSecret }, other, added]);
    expect(await stack.gateway.reloadMerchants()).toMatchObject({ changes: { added: [added.id], removed: [] } });
    const trail = await gql<{ auditTrail: { edges: { node: { action: string; actor: string; detail: string } }[] } }>(
      stack.graphqlUrl,
      `query { auditTrail(first: 100, filter: { actions: [MERCHANTS_RELOADED] }) { edges { node { action actor detail } } } }`,
      {},
      auth(keeper),
    );
    const reloads = trail.data!.auditTrail.edges.map((e) => e.node);
    expect(reloads.length).toBeGreaterThanOrEqual(3);
    expect(reloads[0]).toMatchObject({ actor: 'operator (SIGHUP)', detail: 'changed: shop' });
    const text = JSON.stringify(trail);
    for (const s of [keeper, leaver, oldSecret, newSecret, 'sandbox-key']) expect(text).not.toContain(s);
    expect(capturedResponses.length).toBeGreaterThan(0);
  });
});
