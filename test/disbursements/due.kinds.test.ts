import { dueOf } from '../../src/disbursements/disbursement.checks';
import { Disbursement, DisbursementStatus, DueKind } from '../../src/disbursements/disbursement.model';
import { Merchant } from '../../src/disbursements/disbursement.ports';
import { Actor } from '../../src/disbursements/payout.controls';
import { Domain, domain, merchant, mobileRequest } from '../support/domain';

/**
 * What the due loop does for a payout is named by its due kind, set when a write gives it a status:
 * `RECHECK` asks the provider, `APPROVAL_EXPIRY` ends an approval nobody gave, `SEND` sends a
 * scheduled payout. A record whose kind no longer fits its status is never acted on by that kind,
 * and is not left stuck: what is due follows from its status.
 */
const T0 = Date.parse('2026-11-28T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const POLICY = {
  unknownAfterMs: 1000,
  pendingAfterMs: 60_000,
  maxDelayMs: 600_000,
  staleClaimMs: 120_000,
  resendAfterMs: 60_000,
  scheduleLateLimitMs: 86_400_000,
  scheduleMaxAheadMs: 30 * 86_400_000,
};
const alice: Actor = { id: 'alice', name: 'alice' };
const held: Merchant = {
  id: 'm-due-held',
  apiKey: 'key-h',
  controls: { approvalAbove: { ZMW: '10' }, approvalTtlSeconds: 60 },
};

describe('what is due for a record in each status', () => {
  const base = { status: 'PENDING', sending: false, checkAttempts: 0 } as Disbursement;
  it.each<[DisbursementStatus, Partial<Disbursement>, DueKind | undefined, number | undefined]>([
    ['PENDING', {}, 'RECHECK', T0 + 60_000],
    ['UNKNOWN', {}, 'RECHECK', T0 + 1000],
    ['UNKNOWN', { sending: true }, 'RECHECK', T0 + 120_000],
    [
      'AWAITING_APPROVAL',
      { approval: { requestedBy: 'a', requesterId: 'a', expiresAt: iso(T0 + 5) } },
      'APPROVAL_EXPIRY',
      T0 + 5,
    ],
    ['SCHEDULED', { sendAt: iso(T0 + 7) }, 'SEND', T0 + 7],
    ['SUCCESSFUL', {}, undefined, undefined],
    ['FAILED', {}, undefined, undefined],
    ['CANCELLED', {}, undefined, undefined],
    ['EXPIRED', {}, undefined, undefined],
  ])('%s %j: %s', (status, fields, kind, at) => {
    const due = dueOf({ ...base, status, ...fields }, new Date(T0), POLICY);
    expect(due?.kind).toBe(kind);
    expect(due && Date.parse(due.at)).toBe(at);
  });
});

describe('the due loop runs the step of each kind', () => {
  let clock: number;
  let d: Domain;
  beforeEach(() => {
    clock = T0;
    d = domain({ now: () => new Date(clock) });
  });
  const stored = (m: Merchant, referenceId: string) => d.store.get(m.id, referenceId) as Promise<Disbursement>;
  const run = async (m: Merchant, referenceId: string) => d.service.runDue(m, await stored(m, referenceId));

  it('RECHECK asks the provider about a PENDING payout and sends nothing', async () => {
    const { referenceId } = await d.service.create(merchant, mobileRequest());
    expect((await stored(merchant, referenceId)).due?.kind).toBe('RECHECK');
    await run(merchant, referenceId);
    expect(d.provider.checks).toEqual([referenceId, referenceId]);
    expect(d.provider.creates).toHaveLength(1);
  });

  it('APPROVAL_EXPIRY ends an approval nobody gave in time: CANCELLED, never sent, nothing asked', async () => {
    const request = mobileRequest({ amount: '50.00' });
    await d.service.create(held, request, undefined, alice);
    expect((await stored(held, request.referenceId)).due).toEqual({ kind: 'APPROVAL_EXPIRY', at: iso(T0 + 60_000) });
    clock = T0 + 60_000;
    expect(await run(held, request.referenceId)).toMatchObject({ status: 'CANCELLED', due: undefined });
    expect(d.provider.checks).toHaveLength(0);
    expect(d.provider.creates).toHaveLength(0);
  });

  it('SEND sends a scheduled payout once at its time', async () => {
    const request = mobileRequest({ sendAt: iso(T0 + 5_000) });
    await d.service.create(merchant, request);
    expect((await stored(merchant, request.referenceId)).due).toEqual({ kind: 'SEND', at: iso(T0 + 5_000) });
    clock = T0 + 5_000;
    expect((await run(merchant, request.referenceId))?.status).toBe('PENDING');
    expect(d.provider.creates.map((r) => r.referenceId)).toEqual([request.referenceId]);
  });
});

describe('a record due for a kind its status no longer calls for', () => {
  let d: Domain;
  beforeEach(() => {
    d = domain({ now: () => new Date(T0) });
  });
  const mislabel = (m: Merchant, referenceId: string, kind: DueKind) =>
    d.store.update(m.id, referenceId, (c) => ({ ...c, due: { kind, at: iso(T0) }, leasedUntil: iso(T0 + 30_000) }));

  it.each<[string, DueKind, DueKind | undefined]>([
    ['a PENDING payout due to SEND', 'SEND', 'RECHECK'],
    ['a PENDING payout due to expire', 'APPROVAL_EXPIRY', 'RECHECK'],
  ])('%s: sent nothing more, and due for a RECHECK', async (_name, kind, fitting) => {
    const { referenceId } = await d.service.create(merchant, mobileRequest());
    const record = await mislabel(merchant, referenceId, kind);
    const after = await d.service.runDue(merchant, record as Disbursement);
    expect(d.provider.creates).toHaveLength(1);
    expect(after?.due?.kind).toBe(fitting);
    expect(after?.leasedUntil).toBeUndefined();
  });

  it.each<[string, DueKind]>([
    ['a SCHEDULED payout due for a RECHECK', 'RECHECK'],
    ['a SCHEDULED payout due to expire', 'APPROVAL_EXPIRY'],
  ])('%s: asked nothing, sent nothing, and due to SEND at its time', async (_name, kind) => {
    const request = mobileRequest({ sendAt: iso(T0 + 9_000) });
    await d.service.create(merchant, request);
    const record = await mislabel(merchant, request.referenceId, kind);
    const after = await d.service.runDue(merchant, record as Disbursement);
    expect(d.provider.checks).toHaveLength(0);
    expect(d.provider.creates).toHaveLength(0);
    expect(after?.due).toEqual({ kind: 'SEND', at: iso(T0 + 9_000) });
  });

  it('an AWAITING_APPROVAL payout due for a RECHECK: asked nothing, sent nothing, due to expire', async () => {
    const request = mobileRequest({ amount: '50.00' });
    await d.service.create(held, request, undefined, alice);
    const record = await mislabel(held, request.referenceId, 'RECHECK');
    const after = await d.service.runDue(held, record as Disbursement);
    expect(d.provider.checks).toHaveLength(0);
    expect(d.provider.creates).toHaveLength(0);
    expect(after).toMatchObject({ status: 'AWAITING_APPROVAL', due: { kind: 'APPROVAL_EXPIRY' } });
  });
});
