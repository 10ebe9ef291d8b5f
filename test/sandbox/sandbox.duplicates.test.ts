import { startSandbox, type SandboxHandle } from '../../src/sandbox/sandbox.server';
import {
  MOBILE,
  arrived,
  balanceOf,
  checkStatus,
  mobileBody,
  send,
  waitFor,
  type Json,
  type Reply,
} from './sandbox.client';

/** Long enough for a test to send a repeat while the first create is being taken in. */
const INTAKE_MS = 1500;
const AMOUNT = 20;

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, settleMs: 100, rateLimitPerMin: 0, intakeMs: INTAKE_MS });
});

afterEach(() => sandbox.setFaults({}));

afterAll(() => sandbox.close());

/** Sends a create, then the same create again: while the first is taken in (425), or once it is stored. */
async function createTwice(
  when: 'during intake' | 'after intake',
): Promise<{ body: Json; first: Reply; again: Reply }> {
  const body = mobileBody({
    amount: AMOUNT,
    accountNumber: when === 'during intake' ? '260971234425' : '260971234567',
  });
  const first = send(sandbox.url, MOBILE, body);
  if (when === 'during intake') await arrived(sandbox, body.referenceId);
  else await first.reply;
  const again = send(sandbox.url, MOBILE, body);
  if (when === 'during intake') {
    await arrived(sandbox, body.referenceId, 2);
    expect(first.answered()).toBe(false);
  }
  return { body, first: await first.reply, again: await again.reply };
}

const storedFor = (referenceId: unknown) => sandbox.records().filter((r) => r.referenceId === referenceId);

describe.each(['during intake', 'after intake'] as const)('a repeated referenceId %s', (when) => {
  it('is counted as a duplicate and refused; the provider pays once', async () => {
    const balanceBefore = await balanceOf(sandbox.url);
    const { body, first, again } = await createTwice(when);
    const ref = String(body.referenceId);
    expect(first.status).toBe(200);
    expect(again.status).toBe(400);
    expect(again.json).toEqual({
      status: 400,
      error: 'BAD REQUEST',
      message: 'referenceId already used',
      field: 'referenceId',
    });
    const stats = sandbox.stats();
    expect(stats.createRequestsByReferenceId[ref]).toBe(2);
    expect(stats.duplicateCreatesByReferenceId[ref]).toBe(1);
    expect(stats.payoutsByReferenceId[ref]).toBe(1);
    expect(storedFor(ref)).toHaveLength(1);
    expect(await balanceOf(sandbox.url)).toBe(balanceBefore - AMOUNT);
  });

  it('is paid again under payDuplicates, while check-status keeps answering the first payout', async () => {
    sandbox.setFaults({ payDuplicates: true });
    const balanceBefore = await balanceOf(sandbox.url);
    const duplicatesBefore = sandbox.stats().duplicateCreates;
    const { body, first, again } = await createTwice(when);
    const ref = String(body.referenceId);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.json?.identifier).not.toEqual(first.json?.identifier);
    const stats = sandbox.stats();
    expect(stats.duplicateCreates - duplicatesBefore).toBe(1);
    expect(stats.duplicateCreatesByReferenceId[ref]).toBe(1);
    expect(stats.payoutsByReferenceId[ref]).toBe(2);
    expect(await balanceOf(sandbox.url)).toBe(balanceBefore - 2 * AMOUNT);
    expect((await checkStatus(sandbox.url, ref)).json?.identifier).toBe(first.json?.identifier);
    // Each payout settles on its own.
    await waitFor('both payouts to settle', () =>
      storedFor(ref).filter((r) => r.status === 'Successful').length === 2 ? true : undefined,
    );
  });
});
