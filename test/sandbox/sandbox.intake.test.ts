import { startSandbox, type SandboxHandle } from '../../src/sandbox/sandbox.server';
import {
  BANK,
  MOBILE,
  CallbackReceiver,
  arrived,
  balanceOf,
  bankBody,
  checkStatus,
  mobileBody,
  send,
  waitFor,
} from './sandbox.client';

/** Long enough for a test to look at the sandbox while a create is being taken in. */
const INTAKE_MS = 1500;

let sandbox: SandboxHandle;
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await new CallbackReceiver().start();
  sandbox = await startSandbox({ port: 0, settleMs: 100, rateLimitPerMin: 0, intakeMs: INTAKE_MS });
});

afterEach(() => sandbox.setFaults({}));

afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const listed = (referenceId: unknown): boolean => sandbox.records().some((r) => r.referenceId === referenceId);

/** Sends a create and checks that, once it has arrived, the sandbox neither shows nor answers nor debits it yet. */
async function sendAndLookDuringIntake(path: string, body: Record<string, unknown>, headers: Record<string, string>) {
  const balanceBefore = await balanceOf(sandbox.url);
  const sent = send(sandbox.url, path, body, { headers });
  await arrived(sandbox, body.referenceId);
  expect((await checkStatus(sandbox.url, String(body.referenceId))).status).toBe(404);
  expect(listed(body.referenceId)).toBe(false);
  expect(await balanceOf(sandbox.url)).toBe(balanceBefore);
  expect(sent.answered()).toBe(false);
  return { sent, balanceBefore };
}

describe.each([
  ['an account ending in 425', () => undefined, mobileBody({ accountNumber: '260971234425' }), MOBILE],
  ['the intakeMs fault', () => sandbox.setFaults({ intakeMs: INTAKE_MS }), bankBody(), BANK],
])('a create taken in late: %s', (_name, arrange, body, path) => {
  it('is not found, listed, debited or answered while taken in; then it is, and it settles with a callback', async () => {
    arrange();
    const headers = { callbackUrl: receiver.url('/intake') };
    const { sent, balanceBefore } = await sendAndLookDuringIntake(path, body, headers);

    const res = await sent.reply;
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ referenceId: body.referenceId, status: 'Pending' });
    const found = await checkStatus(sandbox.url, String(body.referenceId));
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ referenceId: body.referenceId, identifier: res.json?.identifier });
    expect(listed(body.referenceId)).toBe(true);
    expect(await balanceOf(sandbox.url)).toBe(balanceBefore - Number(body.amount));

    const [callback] = await waitFor('the callback', () => {
      const calls = receiver.for(String(body.referenceId));
      return calls.length > 0 ? calls : undefined;
    });
    expect(callback.body).toMatchObject({ referenceId: body.referenceId, status: 'Successful' });
  });
});

describe('close()', () => {
  it('drops the creates still being taken in and leaves nothing running', async () => {
    const closing = await startSandbox({ port: 0, settleMs: 100, rateLimitPerMin: 0, intakeMs: 60_000 });
    const body = mobileBody({ accountNumber: '260971234425' });
    const sent = send(closing.url, MOBILE, body);
    await arrived(closing, body.referenceId);
    await closing.close();
    await expect(sent.reply).rejects.toThrow();
    expect(closing.records()).toEqual([]);
  });
});
