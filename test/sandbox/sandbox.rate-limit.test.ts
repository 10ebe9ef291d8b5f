import { startSandbox, type SandboxHandle } from '../../src/sandbox/sandbox.server';
import { MOBILE, checkStatus, create, mobileBody } from './sandbox.client';

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    settleMs: 60_000,
    rateLimitPerMin: 3,
    activeKeys: ['sandbox-key', 'other-key'],
  });
});

afterAll(() => sandbox.close());

it('answers 429 with Retry-After once a key used its requests of the minute, on every API route', async () => {
  // Counted before validation: an invalid create uses up a request too.
  expect((await create(sandbox.url, MOBILE, mobileBody({ amount: -1 }))).status).toBe(400);
  expect((await create(sandbox.url, MOBILE, mobileBody())).status).toBe(200);
  expect((await checkStatus(sandbox.url, 'unknown')).status).toBe(404);

  const body = mobileBody();
  const limited = await create(sandbox.url, MOBILE, body);
  expect(limited.status).toBe(429);
  expect(limited.json).toEqual({ status: 429, error: 'TOO MANY REQUESTS', message: expect.any(String) });
  const retryAfter = Number(limited.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect((await checkStatus(sandbox.url, String(body.referenceId))).status).toBe(429);
  expect(sandbox.records().some((r) => r.referenceId === body.referenceId)).toBe(false);

  // Another key has its own allowance.
  expect(
    (await checkStatus(sandbox.url, String(body.referenceId), { headers: { 'x-api-key': 'other-key' } })).status,
  ).toBe(404);
});
