import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/sandbox.server';
import {
  BANK,
  MOBILE,
  CallbackReceiver,
  bankBody,
  create,
  mobileBody,
  waitFor,
  type ReceivedCallback,
} from './sandbox.client';

const SETTLE_MS = 50;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CALLBACK_KEYS = [
  'referenceId',
  'currency',
  'amount',
  'accountNumber',
  'status',
  'paymentType',
  'type',
  'ipAddress',
  'identifier',
  'message',
  'externalId',
];

const COMMON = { port: 0, settleMs: SETTLE_MS, rateLimitPerMin: 0, callbackRetryBaseMs: 30, callbackMaxAttempts: 3 };

let signed: SandboxHandle;
let unsigned: SandboxHandle;
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await new CallbackReceiver().start();
  signed = await startSandbox({ ...COMMON, webhookSecret: SECRET });
  unsigned = await startSandbox(COMMON);
});

afterAll(async () => {
  await signed.close();
  await unsigned.close();
  await receiver.close();
});

const callbacksFor = (referenceId: unknown, count = 1): Promise<ReceivedCallback[]> =>
  waitFor(`${count} callback(s) for ${String(referenceId)}`, () => {
    const calls = receiver.for(String(referenceId));
    return calls.length >= count ? calls : undefined;
  });

/** A port that was free a moment ago, so connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Verifies like a receiver would: throws unless the signature matches the raw body. */
function verify(call: ReceivedCallback): unknown {
  return new Webhook(SECRET).verify(call.rawBody, {
    'webhook-id': String(call.headers['webhook-id']),
    'webhook-timestamp': String(call.headers['webhook-timestamp']),
    'webhook-signature': String(call.headers['webhook-signature']),
  });
}

describe('signed callbacks', () => {
  it('POSTs a signed flat record once a payout succeeds', async () => {
    const body = mobileBody({ accountNumber: '260761234567' });
    const created = (await create(signed.url, MOBILE, body, { headers: { callbackUrl: receiver.url('/hooks/ok') } }))
      .json!;
    const [call] = await callbacksFor(body.referenceId);
    expect(call.path).toBe('/hooks/ok');
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['webhook-id']).toMatch(/^msg_\w+$/);
    expect(call.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(call.headers['webhook-signature']).toMatch(/^v1,/);
    expect(verify(call)).toEqual(call.body);
    expect(Object.keys(call.body!)).toEqual(CALLBACK_KEYS);
    expect(call.body).toEqual({
      referenceId: body.referenceId,
      currency: 'ZMW',
      amount: 20,
      accountNumber: '260761234567',
      status: 'Successful',
      paymentType: 'OperatorBMoney',
      type: 'Disbursement',
      ipAddress: '127.0.0.1',
      identifier: created.identifier,
      message: null,
      externalId: expect.stringMatching(/^OP\d+$/),
    });
    expect(signed.records().find((r) => r.referenceId === body.referenceId)?.externalId).toBe(call.body?.externalId);
  });

  it('refuses verification with another secret', async () => {
    const body = mobileBody();
    await create(signed.url, MOBILE, body, { headers: { callbackUrl: receiver.url('/hooks/other-secret') } });
    const [call] = await callbacksFor(body.referenceId);
    const other = new Webhook('whsec_' + Buffer.from('another secret entirely').toString('base64'));
    expect(() => other.verify(call.rawBody, call.headers as Record<string, string>)).toThrow();
  });

  it('delivers Failed with a message for an account ending in 000', async () => {
    const body = bankBody({ accountNumber: '0012345000', callbackUrl: receiver.url('/hooks/failed') });
    await create(signed.url, BANK, body);
    const [call] = await callbacksFor(body.referenceId);
    verify(call);
    expect(call.body).toMatchObject({
      referenceId: body.referenceId,
      status: 'Failed',
      paymentType: 'Bank',
      message: expect.stringMatching(/\S/),
      externalId: null,
    });
  });

  it('retries a delivery answered 500 with the same webhook-id, and counts attempts and deliveries', async () => {
    // A sandbox of its own: the shared one may count an earlier test's delivery a moment after it arrived.
    const own = await startSandbox({ ...COMMON, webhookSecret: SECRET });
    try {
      receiver.answerWith('/hooks/flaky', [500]);
      const body = mobileBody();
      await create(own.url, MOBILE, body, { headers: { callbackUrl: receiver.url('/hooks/flaky') } });
      const [first, second] = await callbacksFor(body.referenceId, 2);
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.rawBody).toBe(first.rawBody);
      verify(first);
      verify(second);
      await waitFor('the delivery to be counted', () => (own.stats().callbacksDelivered > 0 ? true : undefined));
      expect(own.stats()).toMatchObject({ callbackAttempts: 2, callbacksDelivered: 1 });
    } finally {
      await own.close();
    }
  });

  it('gives up after callbackMaxAttempts', async () => {
    // A sandbox of its own, whose warnings the test reads.
    type Warning = { msg: string; referenceId?: string };
    const warnings: Warning[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void warnings.push(JSON.parse(line) as Warning) },
    );
    const own = await startSandbox({ ...COMMON, webhookSecret: SECRET, logger });
    try {
      receiver.answerWith('/hooks/down', [503, 503, 503, 503, 503]);
      const body = mobileBody();
      await create(own.url, MOBILE, body, { headers: { callbackUrl: receiver.url('/hooks/down') } });
      await callbacksFor(body.referenceId, 3);
      // The sandbox decides after each failed attempt whether to try again: once it has said it gives up,
      // a fourth attempt is not coming.
      await waitFor('the sandbox to give up', () =>
        warnings.some((w) => w.msg === 'callback failed, giving up' && w.referenceId === body.referenceId)
          ? true
          : undefined,
      );
      expect(receiver.for(String(body.referenceId))).toHaveLength(3);
    } finally {
      await own.close();
    }
  });

  it('retries when the callback address refuses connections', async () => {
    const before = signed.stats();
    await create(signed.url, MOBILE, mobileBody(), {
      headers: { callbackUrl: `http://127.0.0.1:${await closedPort()}/hooks` },
    });
    await waitFor('three attempts', () =>
      signed.stats().callbackAttempts - before.callbackAttempts >= 3 ? true : undefined,
    );
    expect(signed.stats().callbacksDelivered).toBe(before.callbacksDelivered);
  });

  it('prefers the callbackUrl header over the bank body field', async () => {
    const body = bankBody({ callbackUrl: receiver.url('/hooks/from-body') });
    await create(signed.url, BANK, body, { headers: { callbackUrl: receiver.url('/hooks/from-header') } });
    const [call] = await callbacksFor(body.referenceId);
    expect(call.path).toBe('/hooks/from-header');
    // A payout created now calls back one settle period later: a second call for the first would have come sooner.
    const later = mobileBody();
    await create(signed.url, MOBILE, later, { headers: { callbackUrl: receiver.url('/hooks/later') } });
    await callbacksFor(later.referenceId);
    expect(receiver.for(String(body.referenceId))).toHaveLength(1);
  });

  it('never calls back for an account ending in 222, nor for one failed at once (111)', async () => {
    const stuck = mobileBody({ accountNumber: '260971234222' });
    const failedAtOnce = mobileBody({ accountNumber: '260971234111' });
    const normal = mobileBody();
    const headers = { callbackUrl: receiver.url('/hooks/quiet') };
    await create(signed.url, MOBILE, stuck, { headers });
    await create(signed.url, MOBILE, failedAtOnce, { headers });
    await create(signed.url, MOBILE, normal, { headers });
    // Created after them, the ordinary payout settles after them: a call back for either would have been sent first.
    await callbacksFor(normal.referenceId);
    expect(receiver.for(String(stuck.referenceId))).toHaveLength(0);
    expect(receiver.for(String(failedAtOnce.referenceId))).toHaveLength(0);
  });

  it('settles without calling back while dropCallbacks is set, and calls back again once it is cleared', async () => {
    const headers = { callbackUrl: receiver.url('/hooks/dropped') };
    signed.setFaults({ dropCallbacks: true });
    const dropped = mobileBody();
    await create(signed.url, MOBILE, dropped, { headers });
    await waitFor('the payout to settle', () =>
      signed.records().find((r) => r.referenceId === dropped.referenceId && r.status === 'Successful'),
    );
    signed.setFaults({});
    const called = mobileBody();
    await create(signed.url, MOBILE, called, { headers });
    await callbacksFor(called.referenceId);
    expect(receiver.for(String(dropped.referenceId))).toHaveLength(0);
  });
});

describe('unsigned callbacks', () => {
  it('are sent without webhook headers when no secret is set', async () => {
    const body = bankBody({ callbackUrl: receiver.url('/hooks/unsigned') });
    await create(unsigned.url, BANK, body);
    const [call] = await callbacksFor(body.referenceId);
    expect(call.headers).not.toHaveProperty('webhook-signature');
    expect(call.headers).not.toHaveProperty('webhook-id');
    expect(call.headers).not.toHaveProperty('webhook-timestamp');
    expect(call.body).toMatchObject({ referenceId: body.referenceId, status: 'Successful', message: null });
  });
});
