import { AuditEntry } from '../../src/disbursements/audit.entry';
import { Disbursement, DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError } from '../../src/disbursements/disbursement.ports';
import { Actor, PayoutControls } from '../../src/disbursements/payout.controls';
import { Domain, domain, merchant, mobileRequest } from '../support/domain';

/**
 * Scheduled payouts on an injected clock: stored SCHEDULED with nothing sent, sent exactly once by the
 * rechecker's due step at their time (whoever else runs it), cancellable until then, EXPIRED past
 * the late limit, and under the payout controls at both ends.
 */
const T0 = Date.parse('2026-11-25T22:00:00Z');
const LATE_MS = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const alice: Actor = { id: 'alice', name: 'alice' };
const bob: Actor = { id: 'bob', name: 'bob' };
const limited: PayoutControls = { dailyLimit: { ZMW: '1000' }, approvalTtlSeconds: 86_400 };
const approving: PayoutControls = { approvalAbove: { ZMW: '5000' }, approvalTtlSeconds: 86_400 };
const dailyLimited: Merchant = { id: 'm-schedule-limits', apiKey: 'key-l', controls: limited };
const controlled: Merchant = { id: 'm-schedule', apiKey: 'key-s', controls: approving };

interface Setup {
  d: Domain;
  clock: { at: number };
}

function setup(lateLimitMs = LATE_MS): Setup {
  const clock = { at: T0 };
  return { d: domain({ now: () => new Date(clock.at), scheduleLateLimitMs: lateLimitMs }), clock };
}

/** One round of the rechecker's due loop, as each replica runs it: lease, then the step. */
async function dueRound({ d, clock }: Setup, m: Merchant = merchant): Promise<void> {
  const due = await d.store.due(new Date(clock.at), 100);
  await Promise.all(
    due.map(async (record) => {
      const taken = await d.service.lease(record, new Date(clock.at + 30_000));
      if (taken) await d.service.runDue(m, taken);
    }),
  );
}

const scheduledRequest = (sendAt: number, overrides: Partial<DisbursementRequest> = {}) =>
  mobileRequest({ sendAt: iso(sendAt), ...overrides });

async function stored(s: Setup, request: DisbursementRequest, m: Merchant = merchant): Promise<Disbursement> {
  return (await s.d.store.get(m.id, request.referenceId)) as Disbursement;
}

async function audit(s: Setup, request: DisbursementRequest, m: Merchant = merchant): Promise<AuditEntry[]> {
  return (await s.d.service.auditTrail(m, { first: 100, filter: { referenceId: request.referenceId } })).entries;
}

const codeOf = (error: unknown) => (error as { code?: string }).code ?? String(error);

describe('a payout with a sendAt later than now', () => {
  it('is SCHEDULED, sends nothing before its time, then is sent exactly once and audited SCHEDULED then SENT', async () => {
    const s = setup();
    const request = scheduledRequest(T0 + 3_000);
    const created = await s.d.service.create(merchant, request);
    expect(created).toMatchObject({ status: 'SCHEDULED', sendAt: iso(T0 + 3_000) });
    s.clock.at = T0 + 2_999;
    await dueRound(s);
    expect(s.d.provider.creates).toHaveLength(0);
    s.clock.at = T0 + 3_000;
    await Promise.all([dueRound(s), dueRound(s), dueRound(s)]);
    expect(s.d.provider.creates.map((r) => r.referenceId)).toEqual([request.referenceId]);
    expect((await stored(s, request)).status).toBe('PENDING');
    await dueRound(s);
    expect(s.d.provider.creates).toHaveLength(1);
    // The merchant's stream: SCHEDULED with its sendAt when stored, then the provider's answer.
    const stream = s.d.published.filter((r) => r.referenceId === request.referenceId);
    expect(stream.map((r) => [r.status, r.sendAt])).toEqual([
      ['SCHEDULED', iso(T0 + 3_000)],
      ['PENDING', iso(T0 + 3_000)],
    ]);
    expect((await audit(s, request)).map((e) => e.action)).toEqual([
      'CREATE_REQUESTED',
      'SCHEDULED',
      'SENT',
      'PROVIDER_ANSWERED',
    ]);
  });

  it('two recheck steps racing on the same due record send it once', async () => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    s.clock.at = T0 + 1_000;
    const record = await stored(s, request);
    await Promise.all([s.d.service.runDue(merchant, record), s.d.service.runDue(merchant, record)]);
    expect(s.d.provider.creates).toHaveLength(1);
  });

  it.each<[string, number, string, number]>([
    ['sent on time', 0, 'PENDING', 1],
    ['sent late, within the late limit', LATE_MS, 'PENDING', 1],
    ['past the late limit: EXPIRED, never sent', LATE_MS + 1, 'EXPIRED', 0],
  ])('first looked at after its time: %s', async (_name, lateBy, status, creates) => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    s.clock.at = T0 + 1_000 + lateBy;
    await dueRound(s);
    expect((await stored(s, request)).status).toBe(status);
    expect(s.d.provider.creates).toHaveLength(creates);
    if (status === 'EXPIRED') {
      expect((await stored(s, request)).message).toMatch(/SCHEDULE_LATE_LIMIT_SECONDS/);
      expect((await audit(s, request)).map((e) => e.action).at(-1)).toBe('EXPIRED');
    }
  });

  it('cancelled before its time by anyone of the merchant: CANCELLED, never sent, the canceller audited', async () => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request, undefined, alice);
    const cancelled = await s.d.service.cancel(merchant, request.referenceId, bob, false);
    expect(cancelled.status).toBe('CANCELLED');
    s.clock.at = T0 + 2_000;
    await dueRound(s);
    expect(s.d.provider.creates).toHaveLength(0);
    expect((await audit(s, request)).at(-1)).toMatchObject({ action: 'CANCELLED', actor: 'bob' });
    expect(codeOf(await s.d.service.cancel(merchant, request.referenceId, bob, false).catch((e: unknown) => e))).toBe(
      'INVALID_STATE',
    );
  });

  it('cannot be cancelled once sent', async () => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    s.clock.at = T0 + 1_000;
    await dueRound(s);
    const error = await s.d.service.cancel(merchant, request.referenceId, bob, false).catch((e: unknown) => e);
    expect(codeOf(error)).toBe('INVALID_STATE');
    expect((await stored(s, request)).status).toBe('PENDING');
  });

  it('a retry with the same request returns it; another sendAt is a REFERENCE_CONFLICT', async () => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    expect((await s.d.service.create(merchant, { ...request })).status).toBe('SCHEDULED');
    const other = { ...request, sendAt: iso(T0 + 2_000) };
    expect(codeOf(await s.d.service.create(merchant, other).catch((e: unknown) => e))).toBe('REFERENCE_CONFLICT');
    expect(s.d.provider.creates).toHaveLength(0);
  });

  it('the provider refusing at its time (429): SCHEDULED again, tried later, EXPIRED past the late limit', async () => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    const tooMany = () => new ProviderError('rate-limited', 'too many requests', { status: 429 });
    s.d.provider.script.push({ fail: tooMany(), stores: false }, { fail: tooMany(), stores: false });
    s.clock.at = T0 + 1_000;
    await dueRound(s);
    expect((await stored(s, request)).status).toBe('SCHEDULED');
    s.clock.at = T0 + 1_000 + 5_000;
    await dueRound(s);
    expect((await stored(s, request)).status).toBe('SCHEDULED');
    s.clock.at = T0 + 1_000 + LATE_MS + 1;
    await dueRound(s);
    expect((await stored(s, request)).status).toBe('EXPIRED');
    expect(s.d.provider.creates).toHaveLength(2);
  });

  it('the process dying mid-send at its time: the rechecker finds the claim once stale, and sends it again itself once the provider confirms it never received it', async () => {
    const s = setup(86_400_000);
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    s.d.provider.script.push('hang');
    s.clock.at = T0 + 1_000;
    void dueRound(s);
    // The lease and then the claim are each committed with one of the file's next groups, then the create goes out.
    for (let waited = 0; waited < 5_000 && s.d.provider.creates.length === 0; waited += 5)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(s.d.provider.creates).toHaveLength(1);
    // Past the stale claim time (twice UPSTREAM_TIMEOUT_MS) and the resend window: due again, checked, sent again once.
    s.clock.at = T0 + 1_000 + 200_000;
    expect((await s.d.store.due(new Date(s.clock.at), 100)).map((r) => r.referenceId)).toEqual([request.referenceId]);
    await dueRound(s);
    expect(s.d.provider.checks).toContain(request.referenceId);
    expect(s.d.provider.creates).toHaveLength(2);
    expect((await stored(s, request)).status).toBe('PENDING');
    s.clock.at = T0 + 1_000 + 2_000_000;
    await dueRound(s);
    expect(s.d.provider.creates).toHaveLength(2);
  });

  it('an unknown outcome at its time is sent again by the gateway once, only after RESEND_AFTER_SECONDS says the provider never received it', async () => {
    const s = setup(86_400_000);
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    s.d.provider.script.push({ fail: new ProviderError('unknown', 'timed out'), stores: false });
    s.clock.at = T0 + 1_000;
    await dueRound(s);
    expect((await stored(s, request)).status).toBe('UNKNOWN');
    // Within RESEND_AFTER_SECONDS (60 s) of the send, "not found" proves nothing: asked, not sent.
    s.clock.at = T0 + 10_000;
    await dueRound(s);
    expect(s.d.provider.creates).toHaveLength(1);
    expect((await stored(s, request)).status).toBe('UNKNOWN');
    for (const later of [100_000, 1_000_000, 10_000_000]) {
      s.clock.at = T0 + later;
      await dueRound(s);
    }
    expect(s.d.provider.creates).toHaveLength(2);
    const record = await stored(s, request);
    expect(record.status).toBe('PENDING');
    expect(record.history.map((h) => h.message)).toContain(
      'The provider has no record of this payout: it was never received. The gateway sends it again, as it was decided.',
    );
  });

  it('confirmed never received past its late limit: EXPIRED, not sent again', async () => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000);
    await s.d.service.create(merchant, request);
    s.d.provider.script.push({ fail: new ProviderError('unknown', 'timed out'), stores: false });
    s.clock.at = T0 + 1_000;
    await dueRound(s);
    for (const later of [100_000, 1_000_000]) {
      s.clock.at = T0 + later;
      await dueRound(s);
    }
    expect(s.d.provider.creates).toHaveLength(1);
    expect((await stored(s, request)).status).toBe('EXPIRED');
  });
});

describe('a scheduled payout under the payout controls', () => {
  it('reserves its amount for the day it will be sent', async () => {
    const s = setup();
    // 22:00 UTC: two hours later is the next day.
    await s.d.service.create(dailyLimited, scheduledRequest(T0 + 3 * 3_600_000, { amount: '800' }), undefined, alice);
    const today = await s.d.service.create(dailyLimited, mobileRequest({ amount: '800' }), undefined, alice);
    expect(today.status).toBe('PENDING');
    const error = await s.d.service
      .create(dailyLimited, scheduledRequest(T0 + 4 * 3_600_000, { amount: '800' }), undefined, alice)
      .catch((e: unknown) => e);
    expect(codeOf(error)).toBe('LIMIT_EXCEEDED');
  });

  it.each<[string, number, string, number]>([
    ['approved before its time: SCHEDULED, sent at its time', 500, 'PENDING', 1],
    ['approved after its time, within the late limit: sent at once', 1_000 + LATE_MS, 'PENDING', 1],
    ['approved past the late limit: EXPIRED, never sent', 1_000 + LATE_MS + 1, 'EXPIRED', 0],
  ])('above the approval threshold, %s', async (_name, approvedAt, status, creates) => {
    const s = setup();
    const request = scheduledRequest(T0 + 1_000, { amount: '6000' });
    const held = await s.d.service.create(controlled, request, undefined, alice);
    expect(held).toMatchObject({ status: 'AWAITING_APPROVAL', sendAt: iso(T0 + 1_000) });
    s.clock.at = T0 + 1_000;
    await dueRound(s, controlled);
    expect(s.d.provider.creates).toHaveLength(0);
    s.clock.at = T0 + approvedAt;
    const approved = await s.d.service.approve(controlled, request.referenceId, bob);
    if (approvedAt < 1_000) {
      expect(approved.status).toBe('SCHEDULED');
      expect(s.d.provider.creates).toHaveLength(0);
      s.clock.at = T0 + 1_000;
      await dueRound(s, controlled);
    }
    expect((await stored(s, request, controlled)).status).toBe(status);
    expect(s.d.provider.creates).toHaveLength(creates);
  });
});
