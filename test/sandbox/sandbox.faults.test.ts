import { request } from 'undici';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/sandbox.server';
import {
  BANK,
  KEY,
  MOBILE,
  arrived,
  bankBody,
  call,
  checkStatus,
  create,
  expectVanished,
  mobileBody,
  send,
  waitFor,
} from './sandbox.client';

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, settleMs: 60_000, rateLimitPerMin: 0 });
});

afterEach(() => sandbox.setFaults({}));

afterAll(() => sandbox.close());

const statusCodeOf = async (referenceId: unknown): Promise<number> =>
  (await checkStatus(sandbox.url, String(referenceId))).status;

/** Shows that a create is stored while its answer is still held back. */
async function expectStoredBeforeAnswered(target: SandboxHandle): Promise<void> {
  const body = mobileBody();
  let answered = false;
  const pending = create(target.url, MOBILE, body).then((res) => {
    answered = true;
    return res;
  });
  await waitFor('the payout to be stored', () =>
    target.records().some((r) => r.referenceId === body.referenceId) ? true : undefined,
  );
  expect(answered).toBe(false);
  expect((await pending).json).toMatchObject({ referenceId: body.referenceId, status: 'Pending' });
}

describe('sandbox latency', () => {
  it('delays every answer after the payout is stored', async () => {
    const slow = await startSandbox({ port: 0, settleMs: 60_000, rateLimitPerMin: 0, latencyMs: 1000 });
    try {
      await expectStoredBeforeAnswered(slow);
    } finally {
      await slow.close();
    }
  });
});

describe('close()', () => {
  it('lets go of the creates that vanished', async () => {
    const closing = await startSandbox({ port: 0, settleMs: 60_000, rateLimitPerMin: 0 });
    const body = mobileBody({ accountNumber: '260971234410' });
    const sent = send(closing.url, MOBILE, body);
    await arrived(closing, body.referenceId);
    await closing.close();
    await expect(sent.reply).rejects.toThrow();
  });
});

describe('injected faults', () => {
  it('errorRate 1 answers 500 and stores nothing', async () => {
    sandbox.setFaults({ errorRate: 1 });
    const body = mobileBody();
    const res = await create(sandbox.url, MOBILE, body);
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ status: 500, error: 'INTERNAL SERVER ERROR', message: expect.any(String) });
    expect(await statusCodeOf(body.referenceId)).toBe(404);
  });

  it('errorRate 1 with intakeMs answers 500 at once, then takes the payout in all the same', async () => {
    sandbox.setFaults({ errorRate: 1, intakeMs: 300 });
    const body = mobileBody();
    expect((await create(sandbox.url, MOBILE, body)).status).toBe(500);
    expect(await statusCodeOf(body.referenceId)).toBe(404);
    await waitFor('the payout to be taken in', async () =>
      (await statusCodeOf(body.referenceId)) === 200 ? true : undefined,
    );
    expect(sandbox.records().filter((r) => r.referenceId === body.referenceId)).toHaveLength(1);
  });

  it('applies only after validation, auth and duplicate checks', async () => {
    sandbox.setFaults({ errorRate: 1 });
    expect((await create(sandbox.url, MOBILE, mobileBody({ currency: 'Z' }))).status).toBe(400);
    expect((await create(sandbox.url, MOBILE, mobileBody(), { noKey: true })).status).toBe(401);
    // Check-status is never faulted.
    expect(await statusCodeOf('unknown')).toBe(404);
  });

  it('resetRate 1 destroys the socket without an answer, but the payout is stored', async () => {
    sandbox.setFaults({ resetRate: 1 });
    const body = bankBody();
    await expect(create(sandbox.url, BANK, body)).rejects.toThrow();
    expect(await statusCodeOf(body.referenceId)).toBe(200);
  });

  it('hangRate 1 never answers, but the payout is stored', async () => {
    sandbox.setFaults({ hangRate: 1 });
    const body = mobileBody();
    const abort = new AbortController();
    const pending = create(sandbox.url, MOBILE, body, { signal: abort.signal });
    const outcome = pending.then(
      () => 'answered',
      () => 'aborted',
    );
    // Once the record exists the request has been handled; it must still be open.
    await waitFor('the payout to be stored', async () =>
      (await statusCodeOf(body.referenceId)) === 200 ? true : undefined,
    );
    abort.abort();
    expect(await outcome).toBe('aborted');
  });

  it('malformedRate 1 answers 200 with a body that is not valid JSON, and stores the payout', async () => {
    sandbox.setFaults({ malformedRate: 1 });
    const body = mobileBody();
    const res = await create(sandbox.url, MOBILE, body);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(() => JSON.parse(res.text) as unknown).toThrow();
    expect(await statusCodeOf(body.referenceId)).toBe(200);
  });

  it('slowBodyRate 1 sends the headers, then trickles a valid record in pieces', async () => {
    sandbox.setFaults({ slowBodyRate: 1 });
    const body = mobileBody();
    const res = await request(`${sandbox.url}${MOBILE}`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.statusCode).toBe(200);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(Buffer.from(chunk as Uint8Array));
    expect(chunks.length).toBeGreaterThan(1);
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).toMatchObject({
      referenceId: body.referenceId,
      status: 'Pending',
    });
  });

  it('vanishRate 1 never answers and never stores the payout', async () => {
    sandbox.setFaults({ vanishRate: 1 });
    await expectVanished(sandbox, BANK, bankBody());
  });

  it('latencyMs delays the answer, not the storing', async () => {
    sandbox.setFaults({ latencyMs: 1000 });
    await expectStoredBeforeAnswered(sandbox);
  });

  it('can be set and cleared over HTTP with PUT /__sandbox/faults', async () => {
    const put = await call(sandbox.url, 'PUT', '/__sandbox/faults', { body: { errorRate: 1 }, noKey: true });
    expect(put.status).toBe(204);
    expect((await create(sandbox.url, MOBILE, mobileBody())).status).toBe(500);
    expect((await call(sandbox.url, 'PUT', '/__sandbox/faults', { body: {}, noKey: true })).status).toBe(204);
    expect((await create(sandbox.url, MOBILE, mobileBody())).status).toBe(200);
  });

  it('takes the intake, vanish and duplicate settings over HTTP too', async () => {
    const faults = { intakeMs: 0, vanishRate: 0, payDuplicates: true };
    expect((await call(sandbox.url, 'PUT', '/__sandbox/faults', { body: faults, noKey: true })).status).toBe(204);
    const body = mobileBody();
    expect((await create(sandbox.url, MOBILE, body)).status).toBe(200);
    expect((await create(sandbox.url, MOBILE, body)).status).toBe(200);
    expect(sandbox.stats().payoutsByReferenceId[String(body.referenceId)]).toBe(2);
  });

  it.each([
    [{ errorRate: 2 }, 'errorRate'],
    [{ resetRate: '0.5' }, 'resetRate'],
    [{ latencyMs: -1 }, 'latencyMs'],
    [{ intakeMs: '1000' }, 'intakeMs'],
    [{ vanishRate: -0.5 }, 'vanishRate'],
    [{ payDuplicates: 'yes' }, 'payDuplicates'],
    [{ dropCallbacks: 1 }, 'dropCallbacks'],
    [{ eror: 1 }, 'eror'],
  ])('PUT /__sandbox/faults refuses %p naming %s', async (faults, field) => {
    const res = await call(sandbox.url, 'PUT', '/__sandbox/faults', { body: faults, noKey: true });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 400, error: 'BAD REQUEST', field });
    expect((await create(sandbox.url, MOBILE, mobileBody())).status).toBe(200);
  });
});
