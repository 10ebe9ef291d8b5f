import { fingerprint } from '../../src/disbursements/disbursement.fingerprint';
import { Disbursement, DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { ProviderError } from '../../src/disbursements/disbursement.ports';
import { NEVER_RECEIVED, newClaim } from '../../src/disbursements/disbursement.record';
import { Domain, domain, merchant, mobileRequest } from '../support/domain';

/**
 * RESEND_AFTER_SECONDS: a provider may take a while to take a create in and answer "not found"
 * meanwhile. Its "not found" means "never received" only once the window has passed since the last
 * send could have left; before then nothing is sent again, on any path.
 */
const WINDOW_MS = 60_000;
const TIMEOUT_MS = 1_000;
const STALE_MS = 2 * TIMEOUT_MS;
const T0 = Date.parse('2026-11-25T10:00:00Z');

const timeout = () => new ProviderError('unknown', 'provider call timed out');

interface Setup {
  d: Domain;
  clock: { at: number };
  request: DisbursementRequest;
}

function setup(): Setup {
  const clock = { at: T0 };
  const d = domain({ upstreamTimeoutMs: TIMEOUT_MS, resendAfterMs: WINDOW_MS, now: () => new Date(clock.at) });
  return { d, clock, request: mobileRequest() };
}

const codeOf = (error: unknown) => (error as { code?: string }).code ?? String(error);

async function answerOf(promise: Promise<Disbursement>): Promise<string> {
  try {
    return (await promise).status;
  } catch (error) {
    return codeOf(error);
  }
}

/** A create whose call timed out at T0 (its answer lost); the provider takes it in only when the test says. */
async function timedOut(s: Setup): Promise<void> {
  s.d.provider.script.push({ fail: timeout(), stores: false });
  expect(await answerOf(s.d.service.create(merchant, s.request))).toBe('OUTCOME_UNKNOWN');
}

describe('a retry after an outcome that may have reached the provider', () => {
  it.each<[string, number, boolean, { answer: string; creates: number }]>([
    [
      'inside the window, the provider has nothing yet: OUTCOME_UNKNOWN, nothing sent',
      1_000,
      false,
      { answer: 'OUTCOME_UNKNOWN', creates: 1 },
    ],
    ['just before the edge: still nothing sent', WINDOW_MS - 1, false, { answer: 'OUTCOME_UNKNOWN', creates: 1 }],
    ['at the edge: "not found" means never received, sent again', WINDOW_MS, false, { answer: 'PENDING', creates: 2 }],
    ['after the window: sent again', WINDOW_MS + 5_000, false, { answer: 'PENDING', creates: 2 }],
    [
      'inside the window, the provider has taken it in: its payout, nothing sent',
      2_500,
      true,
      { answer: 'PENDING', creates: 1 },
    ],
  ])('%s', async (_name, afterMs, providerHasIt, expected) => {
    const s = setup();
    await timedOut(s);
    s.clock.at = T0 + afterMs;
    if (providerHasIt) s.d.provider.have(s.request, 'Pending');
    const answer = await answerOf(s.d.service.create(merchant, s.request));
    expect({ answer, creates: s.d.provider.creates.length }).toEqual(expected);
  });

  it('however often and however soon the client retries, one create; the payout is adopted once taken in', async () => {
    const s = setup();
    await timedOut(s);
    for (let at = 250; at < 2_500; at += 250) {
      s.clock.at = T0 + at;
      expect(await answerOf(s.d.service.create(merchant, s.request))).toBe('OUTCOME_UNKNOWN');
    }
    s.clock.at = T0 + 2_500;
    s.d.provider.have(s.request, 'Pending');
    expect(await answerOf(s.d.service.create(merchant, s.request))).toBe('PENDING');
    expect(s.d.provider.creates).toHaveLength(1);
  });

  it('the window counts from when the failed send ended, not from when the payout was claimed', async () => {
    const s = setup();
    s.d.provider.onCreate = () => (s.clock.at += TIMEOUT_MS);
    await timedOut(s);
    // 60.5 s after the claim, but only 59.5 s after the send that timed out at T0 + 1 s.
    s.clock.at = T0 + WINDOW_MS + 500;
    expect(await answerOf(s.d.service.create(merchant, s.request))).toBe('OUTCOME_UNKNOWN');
    s.clock.at = T0 + TIMEOUT_MS + WINDOW_MS;
    expect(await answerOf(s.d.service.create(merchant, s.request))).toBe('PENDING');
    expect(s.d.provider.creates).toHaveLength(2);
  });
});

describe('a claim a dead replica left still "sending"', () => {
  async function deadClaim(s: Setup): Promise<void> {
    const at = new Date(T0).toISOString();
    const claim = {
      ...newClaim(merchant.id, s.request, fingerprint(s.request), at),
      sentAt: at,
      due: { kind: 'RECHECK' as const, at },
    };
    expect(await s.d.store.insertIfAbsent(claim)).toBeUndefined();
  }

  it.each<[string, number, { answer: string; creates: number }]>([
    // Its send may have left until the claim went stale (T0 + 2 s): the window counts from then.
    [
      'stale, inside the window: OUTCOME_UNKNOWN, nothing sent',
      STALE_MS + 1_000,
      { answer: 'OUTCOME_UNKNOWN', creates: 0 },
    ],
    ['stale, just before the window ends', STALE_MS + WINDOW_MS - 1, { answer: 'OUTCOME_UNKNOWN', creates: 0 }],
    ['stale, the window over: sent once', STALE_MS + WINDOW_MS, { answer: 'PENDING', creates: 1 }],
  ])('%s', async (_name, afterMs, expected) => {
    const s = setup();
    await deadClaim(s);
    s.clock.at = T0 + afterMs;
    const answer = await answerOf(s.d.service.create(merchant, s.request));
    expect({ answer, creates: s.d.provider.creates.length }).toEqual(expected);
  });

  it('the rechecker keeps it, ends the claim at the latest moment it could have left, and asks again by the window’s end', async () => {
    const s = setup();
    await deadClaim(s);
    s.clock.at = T0 + STALE_MS + 1_000;
    const record = (await s.d.store.get(merchant.id, s.request.referenceId))!;
    const after = await s.d.service.runDue(merchant, record);
    expect(after).toMatchObject({ status: 'UNKNOWN', sending: false, sentAt: new Date(T0 + STALE_MS).toISOString() });
    expect(Date.parse(after!.due!.at)).toBeLessThanOrEqual(T0 + STALE_MS + WINDOW_MS);
    expect(after?.history.map((h) => h.message)).not.toContain(NEVER_RECEIVED);
  });
});

describe('the rechecker after an unknown outcome', () => {
  it.each<[string, number, boolean]>([
    ['inside the window: asks again later, never "never received"', 10_000, false],
    ['at the edge: marked never received, no longer asked', WINDOW_MS, true],
  ])('%s', async (_name, afterMs, neverReceived) => {
    const s = setup();
    await timedOut(s);
    s.clock.at = T0 + afterMs;
    const record = (await s.d.store.get(merchant.id, s.request.referenceId))!;
    const after = await s.d.service.runDue(merchant, record);
    expect(after?.history.at(-1)?.message === NEVER_RECEIVED).toBe(neverReceived);
    if (neverReceived) expect(after?.due?.at).toBeUndefined();
    else expect(Date.parse(after!.due!.at)).toBeLessThanOrEqual(T0 + WINDOW_MS);
    expect(s.d.provider.creates).toHaveLength(1);
  });

  it('adopts the payout as soon as the provider shows it, and a retry then sends nothing', async () => {
    const s = setup();
    await timedOut(s);
    s.clock.at = T0 + 2_000;
    const asked = (await s.d.store.get(merchant.id, s.request.referenceId))!;
    await s.d.service.runDue(merchant, asked);
    s.clock.at = T0 + 3_000;
    s.d.provider.have(s.request, 'Pending');
    const again = (await s.d.store.get(merchant.id, s.request.referenceId))!;
    expect((await s.d.service.runDue(merchant, again))?.status).toBe('PENDING');
    expect(await answerOf(s.d.service.create(merchant, s.request))).toBe('PENDING');
    expect(s.d.provider.creates).toHaveLength(1);
  });
});

describe('every path that can send keeps the window', () => {
  const controlled = {
    ...merchant,
    id: 'm-controls',
    controls: { approvalAbove: { ZMW: '5000' }, approvalTtlSeconds: 3600 },
  };
  const alice = { id: 'alice', name: 'alice' };
  const bob = { id: 'bob', name: 'bob' };

  it.each<[string, number, { answer: string; creates: number }]>([
    [
      'an approved payout whose send timed out, retried inside the window',
      30_000,
      { answer: 'OUTCOME_UNKNOWN', creates: 1 },
    ],
    ['the same after the window', WINDOW_MS, { answer: 'PENDING', creates: 2 }],
  ])('%s', async (_name, afterMs, expected) => {
    const s = setup();
    const request = mobileRequest({ amount: '6000' });
    expect((await s.d.service.create(controlled, request, undefined, alice)).status).toBe('AWAITING_APPROVAL');
    s.d.provider.script.push({ fail: timeout(), stores: false });
    expect(await answerOf(s.d.service.approve(controlled, request.referenceId, bob))).toBe('OUTCOME_UNKNOWN');
    // A second approval sends nothing: it answers what the first one's send left.
    expect(await answerOf(s.d.service.approve(controlled, request.referenceId, { id: 'carol', name: 'carol' }))).toBe(
      'UNKNOWN',
    );
    s.clock.at = T0 + afterMs;
    const answer = await answerOf(s.d.service.create(controlled, request, undefined, alice));
    expect({ answer, creates: s.d.provider.creates.length }).toEqual(expected);
  });

  it.each<[string, number, { result: string; creates: number }]>([
    ['a batch item whose earlier send timed out, inside the window', 5_000, { result: 'OUTCOME_UNKNOWN', creates: 1 }],
    ['the same after the window', WINDOW_MS, { result: 'PENDING', creates: 2 }],
  ])('%s', async (_name, afterMs, expected) => {
    const s = setup();
    await timedOut(s);
    s.clock.at = T0 + afterMs;
    const [result] = await s.d.service.createMany(merchant, [
      { referenceId: s.request.referenceId, request: s.request },
    ]);
    const shown = 'record' in result ? result.record.status : result.error.code;
    expect({ result: shown, creates: s.d.provider.creates.length }).toEqual(expected);
  });
});
