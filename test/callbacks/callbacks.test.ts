import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  callbackBody,
  CREATE_MOBILE,
  DISBURSEMENT_FIELDS,
  eventually,
  gql,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
} from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const record = (referenceId: string, status: string, extra: Record<string, unknown> = {}) =>
  callbackBody(referenceId, status, { externalId: status.toLowerCase() === 'successful' ? 'OP123' : null, ...extra });

async function deliver(
  body: unknown,
  opts: { id?: string; secret?: string | null; raw?: string; headers?: Record<string, string> } = {},
) {
  const raw = opts.raw ?? JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.secret !== null) {
    const id = opts.id ?? `msg_${randomUUID()}`;
    const ts = new Date();
    headers['webhook-id'] = id;
    headers['webhook-timestamp'] = String(Math.floor(ts.getTime() / 1000));
    headers['webhook-signature'] = new Webhook(opts.secret ?? stack.webhookSecret).sign(id, ts, raw);
  }
  const res = await fetch(stack.gateway.callbackUrl('default'), { method: 'POST', headers, body: raw });
  return res.status;
}

/** A payout whose sandbox never calls back, so the test drives every delivery itself. */
async function quietPayout(): Promise<string> {
  const input = mobileInput({ accountNumber: '260971234222' });
  const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
  expect(res.errors).toBeUndefined();
  return input.referenceId as string;
}

const read = async (referenceId: string) =>
  (await gql<{ disbursement: PayoutRow }>(stack.graphqlUrl, QUERY, { referenceId })).data!.disbursement;

describe('callback receiver', () => {
  it('applies duplicate, reordered and stale deliveries as one clean history and one event per real change', async () => {
    const referenceId = await quietPayout();
    const client = wsClient(stack.graphqlUrl);
    const stream = subscribe<{ disbursementUpdates: PayoutRow }>(
      client,
      `subscription { disbursementUpdates { referenceId status externalId } }`,
    );
    const watch = subscribe<{ disbursementUpdated: PayoutRow }>(client, WATCH, { referenceId });
    await watch.waitFor(1);
    await subscriptionsLive(stack, 2);

    expect(await deliver(record(referenceId, 'Pending'))).toBe(200); // repeated PENDING: no change
    expect(await deliver(record(referenceId, 'SUCCESSFUL'), { id: 'msg_final' })).toBe(200); // upper case
    expect(await deliver(record(referenceId, 'SUCCESSFUL'), { id: 'msg_final' })).toBe(200); // same webhook-id again
    expect(
      await deliver({ type: 'transaction.completed', data: record(referenceId, 'successful', { amount: '150.75' }) }),
    ).toBe(200); // same content, new id, envelope
    expect(await deliver(record(referenceId, 'Pending'))).toBe(200); // stale, arrives late
    expect(await deliver(record(referenceId, 'Failed', { message: 'late contradiction' }))).toBe(200); // final is final

    await watch.completed;
    // A change of another payout, made after all those deliveries, comes over the same stream after any they caused.
    const marker = await quietPayout();
    expect(await deliver(record(marker, 'Successful'))).toBe(200);
    await eventually(() =>
      stream.events.some((e) => e.disbursementUpdates.referenceId === marker) ? true : undefined,
    );
    const mine = stream.events.map((e) => e.disbursementUpdates).filter((e) => e.referenceId === referenceId);
    expect(mine.map((e) => e.status)).toEqual(['SUCCESSFUL']);
    expect(mine[0].externalId).toBe('OP123');
    expect(watch.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    const stored = await read(referenceId);
    expect(stored.status).toBe('SUCCESSFUL');
    expect(stored.history.map((h) => [h.status, h.source])).toEqual([
      ['PENDING', 'CREATE'],
      ['SUCCESSFUL', 'CALLBACK'],
    ]);
    stream.dispose();
    await client.dispose();
  });

  it('refuses a forged or unsigned callback with 401 and changes nothing', async () => {
    const referenceId = await quietPayout();
    const forged = `whsec_${Buffer.from('not the secret at all, 32 bytes!').toString('base64')}`;
    expect(await deliver(record(referenceId, 'Successful'), { secret: forged })).toBe(401);
    expect(await deliver(record(referenceId, 'Successful'), { secret: null })).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 600;
    const raw = JSON.stringify(record(referenceId, 'Successful'));
    const old = new Webhook(stack.webhookSecret).sign('msg_old', new Date(stale * 1000), raw);
    expect(
      await deliver(undefined, {
        secret: null,
        raw,
        headers: { 'webhook-id': 'msg_old', 'webhook-timestamp': String(stale), 'webhook-signature': old },
      }),
    ).toBe(401);
    expect((await read(referenceId)).status).toBe('PENDING');
  });

  it('refuses oversized and malformed bodies with 4xx and keeps working', async () => {
    const referenceId = await quietPayout();
    expect(
      await deliver(undefined, {
        raw: JSON.stringify({ ...record(referenceId, 'Successful'), pad: 'x'.repeat(100_000) }),
      }),
    ).toBe(413);
    expect(await deliver(undefined, { raw: '{"referenceId": "x", "status": ' })).toBe(400);
    expect(await deliver({ hello: 'world' })).toBe(400);
    expect(await deliver([1, 2, 3])).toBe(400);
    expect(await deliver(record(referenceId, 'Successful'))).toBe(200);
    expect((await read(referenceId)).status).toBe('SUCCESSFUL');
  });

  it('answers 404 on a callback path with a wrong token', async () => {
    const res = await fetch(`${stack.gateway.url}/callbacks/not-the-token`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });

  it('keeps a callback that arrives before the create answer, and it wins', async () => {
    // The provider takes 400 ms to answer the create; its callback comes first.
    const slow = await startStack({ sandbox: { latencyMs: 400 } });
    try {
      const input = mobileInput({ accountNumber: '260971234222' });
      const pending = gql<{ createMobileMoneyDisbursement: PayoutRow }>(slow.graphqlUrl, CREATE_MOBILE, { input });
      await new Promise((r) => setTimeout(r, 150));
      const raw = JSON.stringify(record(input.referenceId as string, 'Successful'));
      const ts = new Date();
      const status = (
        await fetch(slow.gateway.callbackUrl('default'), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': 'msg_early',
            'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
            'webhook-signature': new Webhook(slow.webhookSecret).sign('msg_early', ts, raw),
          },
          body: raw,
        })
      ).status;
      expect(status).toBe(200);
      const created = (await pending).data!.createMobileMoneyDisbursement;
      expect(created.status).toBe('SUCCESSFUL');
      expect(created.history.map((h) => h.status)).toEqual(['SUCCESSFUL']);
    } finally {
      await slow.close();
    }
  });
});
