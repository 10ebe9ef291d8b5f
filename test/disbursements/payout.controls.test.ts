import { DisbursementBatches } from '../../src/disbursements/disbursement.batch';
import { GatewayError } from '../../src/disbursements/disbursement.errors';
import { planCreate } from '../../src/disbursements/disbursement.limits';
import { Disbursement, DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError } from '../../src/disbursements/disbursement.ports';
import { Actor, dayOf, fromMinor, PayoutControls, toMinor } from '../../src/disbursements/payout.controls';
import { domain, Domain, mobileRequest } from '../support/domain';

/** These batches hold no beneficiary items. */
const unused = () => Promise.reject(new Error('no beneficiary items in this batch'));

const alice: Actor = { id: 'token:alice', name: 'alice' };
const bob: Actor = { id: 'token:bob', name: 'bob' };
const carol: Actor = { id: 'token:carol', name: 'carol' };

const controls: PayoutControls = {
  approvalAbove: { ZMW: '5000' },
  maxAmount: { ZMW: '50000' },
  dailyLimit: { ZMW: '60000' },
  userDailyLimit: { ZMW: '20000' },
  approvalTtlSeconds: 60,
};
const controlled: Merchant = { id: 'm-controls', apiKey: 'key-c', controls };

/** What a failed call answered: its code and its extensions, as the client sees them. */
async function attempt(call: Promise<Disbursement>): Promise<Disbursement | GatewayError> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
const codeOf = (outcome: Disbursement | GatewayError) =>
  outcome instanceof GatewayError ? outcome.code : outcome.status;

describe('amounts and days', () => {
  it.each([
    ['0.01', 1],
    ['12.5', 1250],
    ['5000', 500_000],
    ['0150.50', 15_050],
  ])('%s is %d minor units and back', (amount, minor) => {
    expect(toMinor(amount)).toBe(minor);
    expect(toMinor(fromMinor(minor))).toBe(minor);
  });

  it.each([
    ['2026-11-22T23:30:00Z', 'UTC', '2026-11-22'],
    ['2026-11-22T23:30:00Z', 'Africa/Lusaka', '2026-11-23'],
    ['2026-11-23T03:00:00Z', 'America/New_York', '2026-11-22'],
  ])('%s is on %s the day %s', (at, zone, day) => {
    expect(dayOf(new Date(at), zone)).toBe(day);
  });
});

describe('what the controls decide before anything is stored', () => {
  it.each<[string, string, string, { awaiting?: boolean; reserved?: boolean; refused?: string }]>([
    ['at the threshold', '5000', 'ZMW', { awaiting: false, reserved: true }],
    ['above the threshold', '5000.01', 'ZMW', { awaiting: true, reserved: true }],
    ['at maxAmount', '50000', 'ZMW', { awaiting: true, reserved: true }],
    ['above maxAmount', '50000.01', 'ZMW', { refused: 'maxAmount' }],
    ['a currency no control names', '999999', 'USD', { awaiting: false, reserved: false }],
  ])('%s', (_name, amount, currency, expected) => {
    const request = mobileRequest({ amount, currency });
    const now = new Date('2026-11-22T10:00:00Z');
    if (expected.refused) {
      let refusal: unknown;
      try {
        planCreate(controlled, request, alice, now, 'UTC');
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        details: { limit: expected.refused, remaining: '50000' },
      });
      return;
    }
    const plan = planCreate(controlled, request, alice, now, 'UTC');
    expect(plan.awaiting).toBe(expected.awaiting);
    expect(plan.reservation !== undefined).toBe(expected.reserved);
  });

  it('plans nothing without controls', () => {
    expect(
      planCreate({ id: 'm', apiKey: 'k' }, mobileRequest({ amount: '1000000' }), alice, new Date(), 'UTC'),
    ).toEqual({
      awaiting: false,
    });
  });
});

describe('approval by a second person', () => {
  let d: Domain;
  let clock: Date;
  beforeEach(() => {
    clock = new Date('2026-11-22T10:00:00Z');
    d = domain({ now: () => clock });
  });
  const held = async (amount = '6000'): Promise<DisbursementRequest> => {
    const request = mobileRequest({ amount });
    const record = await d.service.create(controlled, request, undefined, alice);
    expect(record.status).toBe('AWAITING_APPROVAL');
    return request;
  };
  const stored = async (request: DisbursementRequest) => d.store.get(controlled.id, request.referenceId);

  it('holds a payout above the threshold: stored AWAITING_APPROVAL, published, nothing sent; a retry returns it', async () => {
    const request = await held();
    expect(d.provider.creates).toHaveLength(0);
    expect(d.published.map((r) => r.status)).toEqual(['AWAITING_APPROVAL']);
    const record = await stored(request);
    expect(record?.approval).toMatchObject({ requestedBy: 'alice', expiresAt: '2026-11-22T10:01:00.000Z' });
    expect(record?.history).toEqual([
      expect.objectContaining({ status: 'AWAITING_APPROVAL', actor: 'alice', source: 'CREATE' }),
    ]);
    expect((await d.service.create(controlled, request, undefined, alice)).status).toBe('AWAITING_APPROVAL');
    expect(d.provider.creates).toHaveLength(0);
    expect(d.controls).toEqual([
      { merchantId: controlled.id, referenceId: request.referenceId, actor: 'alice', action: 'held' },
    ]);
  });

  it.each<[string, (r: DisbursementRequest) => Promise<Disbursement>, string, number]>([
    ['the requester approving', (r) => d.service.approve(controlled, r.referenceId, alice), 'FORBIDDEN', 0],
    ['another person approving', (r) => d.service.approve(controlled, r.referenceId, bob), 'PENDING', 1],
    [
      'an approver rejecting',
      (r) => d.service.reject(controlled, r.referenceId, bob, 'not in the budget'),
      'CANCELLED',
      0,
    ],
    ['the requester cancelling', (r) => d.service.cancel(controlled, r.referenceId, alice, false), 'CANCELLED', 0],
    ['an approver cancelling', (r) => d.service.cancel(controlled, r.referenceId, bob, true), 'CANCELLED', 0],
    ['another writer cancelling', (r) => d.service.cancel(controlled, r.referenceId, carol, false), 'FORBIDDEN', 0],
  ])('%s: %s, %d provider calls', async (_name, act, outcome, creates) => {
    const request = await held();
    expect(codeOf(await attempt(act(request)))).toBe(outcome);
    expect(d.provider.creates).toHaveLength(creates);
  });

  it('an approval sends it once through the create protocol; every step names who did it', async () => {
    const request = await held();
    const approved = await d.service.approve(controlled, request.referenceId, bob);
    expect(approved.status).toBe('PENDING');
    expect(approved.approval).toMatchObject({ requestedBy: 'alice', decidedBy: 'bob', decision: 'APPROVED' });
    expect(approved.history.map((e) => [e.status, e.actor])).toEqual([
      ['AWAITING_APPROVAL', 'alice'],
      ['AWAITING_APPROVAL', 'bob'],
      ['PENDING', undefined],
    ]);
    // Subscribers see AWAITING_APPROVAL, then PENDING: the approval itself is the claim, not a status of its own.
    expect(d.published.map((r) => r.status)).toEqual(['AWAITING_APPROVAL', 'PENDING']);
    expect((await d.service.approve(controlled, request.referenceId, carol)).status).toBe('PENDING');
    expect(d.provider.creates).toHaveLength(1);
    expect(d.controls.map((c) => [c.action, c.actor])).toEqual([
      ['held', 'alice'],
      ['approved', 'bob'],
    ]);
  });

  it('ten racing approvals and a rejection: one decision wins, at most one send', async () => {
    const request = await held();
    const racers = [
      ...Array.from({ length: 10 }, () => d.service.approve(controlled, request.referenceId, bob)),
      d.service.reject(controlled, request.referenceId, carol),
    ];
    const outcomes = (await Promise.all(racers.map(attempt))).map(codeOf);
    const final = await stored(request);
    expect(d.provider.creates.length).toBe(final?.status === 'CANCELLED' ? 0 : 1);
    expect(d.controls.filter((c) => c.action !== 'held')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'INVALID_STATE').length).toBe(final?.status === 'CANCELLED' ? 10 : 1);
    // Every approval that lost to another answers what the winner's send got, never the in-flight UNKNOWN.
    expect(outcomes.filter((o) => o !== 'INVALID_STATE')).toEqual(
      final?.status === 'CANCELLED' ? ['CANCELLED'] : Array(10).fill('PENDING'),
    );
  });

  it('the requester approving after someone else did is still FORBIDDEN', async () => {
    const request = await held();
    await d.service.approve(controlled, request.referenceId, bob);
    expect(await attempt(d.service.approve(controlled, request.referenceId, alice))).toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(d.provider.creates).toHaveLength(1);
  });

  it.each<[string, (r: DisbursementRequest) => Promise<Disbursement>]>([
    ['rejected', (r) => d.service.reject(controlled, r.referenceId, bob, 'no')],
    ['cancelled', (r) => d.service.cancel(controlled, r.referenceId, alice, false)],
  ])('once %s it can be neither approved nor rejected: INVALID_STATE with its status', async (_name, end) => {
    const request = await held();
    await end(request);
    for (const act of [
      () => d.service.approve(controlled, request.referenceId, bob),
      () => d.service.reject(controlled, request.referenceId, bob),
    ]) {
      const error = await attempt(act());
      expect(error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'CANCELLED' } });
    }
    expect(d.provider.creates).toHaveLength(0);
  });

  it('expires after approvalTtlSeconds through the rechecker: CANCELLED, never sent, and saying so', async () => {
    const request = await held();
    const before = await stored(request);
    expect(before?.due?.at).toBe('2026-11-22T10:01:00.000Z');
    // A rechecker that looks early changes nothing a client sees.
    await d.service.runDue(controlled, before as Disbursement);
    expect((await stored(request))?.status).toBe('AWAITING_APPROVAL');
    clock = new Date('2026-11-22T10:01:00Z');
    const expired = await d.service.runDue(controlled, (await stored(request)) as Disbursement);
    expect(expired).toMatchObject({ status: 'CANCELLED', approval: { decision: 'EXPIRED' }, due: undefined });
    expect(expired?.message).toMatch(/expired/i);
    expect(await attempt(d.service.approve(controlled, request.referenceId, bob))).toMatchObject({
      code: 'INVALID_STATE',
    });
    expect(d.provider.creates).toHaveLength(0);
    expect(d.provider.checks).toHaveLength(0);
  });

  it('an approval after the expiry but before the rechecker is INVALID_STATE, and expires it', async () => {
    const request = await held();
    clock = new Date('2026-11-22T10:05:00Z');
    expect(await attempt(d.service.approve(controlled, request.referenceId, bob))).toMatchObject({
      code: 'INVALID_STATE',
      details: { status: 'CANCELLED' },
    });
    expect(d.provider.creates).toHaveLength(0);
  });

  it('when the provider takes nothing, the approval is undone: awaiting again, and a later approval sends it', async () => {
    const request = await held();
    d.provider.script.push({ fail: new ProviderError('unavailable', 'down'), stores: false });
    expect(codeOf(await attempt(d.service.approve(controlled, request.referenceId, bob)))).toBe('UPSTREAM_UNAVAILABLE');
    expect(await stored(request)).toMatchObject({
      status: 'AWAITING_APPROVAL',
      sending: false,
      approval: { requestedBy: 'alice' },
    });
    expect((await d.service.approve(controlled, request.referenceId, bob)).status).toBe('PENDING');
    expect(d.provider.creates).toHaveLength(2);
  });

  it('an approval undone after its payout was seen UNKNOWN is published: subscribers see it awaiting again', async () => {
    const request = await held();
    d.provider.script.push({ fail: new ProviderError('unknown', 'socket hang up'), stores: false });
    expect(codeOf(await attempt(d.service.approve(controlled, request.referenceId, bob)))).toBe('OUTCOME_UNKNOWN');
    // Once RESEND_AFTER_SECONDS have passed, the requester's retry asks the provider (nothing), sends,
    // and the provider takes nothing.
    clock = new Date(clock.getTime() + 60_000);
    d.provider.script.push({ fail: new ProviderError('unavailable', 'down'), stores: false });
    expect(codeOf(await attempt(d.service.create(controlled, request, undefined, alice)))).toBe('UPSTREAM_UNAVAILABLE');
    expect(await stored(request)).toMatchObject({ status: 'AWAITING_APPROVAL', sending: false });
    const published = d.published.filter((r) => r.referenceId === request.referenceId);
    expect(published.map((r) => r.status)).toEqual(['AWAITING_APPROVAL', 'UNKNOWN', 'AWAITING_APPROVAL']);
  });

  it('a payout awaiting approval is not refreshed from the provider', async () => {
    const request = await held();
    expect((await d.service.refresh(controlled, request.referenceId))?.status).toBe('AWAITING_APPROVAL');
    expect(d.provider.checks).toHaveLength(0);
  });
});

describe('daily limits', () => {
  let d: Domain;
  beforeEach(() => {
    d = domain({ now: () => new Date('2026-11-22T10:00:00Z') });
  });
  const create = (amount: string, actor: Actor) =>
    attempt(d.service.create(controlled, mobileRequest({ amount }), undefined, actor));

  it.each<[string, [string, Actor][], string, Actor, { limit: string; remaining: string } | undefined]>([
    ['within both limits', [['4000', alice]], '4000', alice, undefined],
    [
      'past the user limit',
      [
        ['4000', alice],
        ['4000', alice],
        ['4000', alice],
        ['4000', alice],
      ],
      '4000.01',
      alice,
      { limit: 'userDailyLimit', remaining: '4000' },
    ],
    [
      'another user still has theirs',
      [
        ['4000', alice],
        ['4000', alice],
        ['4000', alice],
        ['4000', alice],
        ['4000', alice],
      ],
      '4000',
      bob,
      undefined,
    ],
    [
      'past the merchant limit',
      [
        ['20000', alice],
        ['20000', bob],
        ['15000', carol],
      ],
      '5000.5',
      carol,
      { limit: 'dailyLimit', remaining: '5000' },
    ],
  ])('%s', async (_name, before, amount, actor, refused) => {
    for (const [a, who] of before) expect(codeOf(await create(a, who))).not.toBe('LIMIT_EXCEEDED');
    const outcome = await create(amount, actor);
    if (!refused) return expect(outcome).not.toBeInstanceOf(GatewayError);
    expect(outcome).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { ...refused, fields: ['input.amount'] } });
    expect(d.controls.at(-1)).toMatchObject({ action: 'refused', limit: refused.limit });
  });

  it('a refused payout is neither stored nor sent', async () => {
    const request = mobileRequest({ amount: '50000.01' });
    await attempt(d.service.create(controlled, request, undefined, alice));
    expect(await d.store.get(controlled.id, request.referenceId)).toBeUndefined();
    expect(d.provider.creates).toHaveLength(0);
  });

  it('a payout counts from its creation (awaiting approval too) and stops counting once FAILED or CANCELLED', async () => {
    const allowance = async (actor: Actor) => (await d.service.allowance(controlled, actor))[0];
    expect(await allowance(alice)).toEqual({
      currency: 'ZMW',
      maxAmount: '50000',
      approvalAbove: '5000',
      dailyRemaining: '60000',
      userDailyRemaining: '20000',
    });
    const awaiting = mobileRequest({ amount: '6000' });
    await d.service.create(controlled, awaiting, undefined, alice);
    d.provider.script.push('Failed');
    await d.service.create(controlled, mobileRequest({ amount: '1000' }), undefined, alice);
    await d.service.create(controlled, mobileRequest({ amount: '2000' }), undefined, alice);
    expect(await allowance(alice)).toMatchObject({ dailyRemaining: '52000', userDailyRemaining: '12000' });
    expect(await allowance(bob)).toMatchObject({ dailyRemaining: '52000', userDailyRemaining: '20000' });
    await d.service.reject(controlled, awaiting.referenceId, bob);
    expect(await allowance(alice)).toMatchObject({ dailyRemaining: '58000', userDailyRemaining: '18000' });
  });

  it('a payout the provider never took gives its amount back', async () => {
    d.provider.script.push({ fail: new ProviderError('unavailable', 'down'), stores: false });
    expect(codeOf(await create('3000', alice))).toBe('UPSTREAM_UNAVAILABLE');
    expect((await d.service.allowance(controlled, alice))[0].userDailyRemaining).toBe('20000');
  });

  it('a batch checks each item in input order: the first ones fit, the later ones are refused', async () => {
    const amounts = ['4000', '4000', '4000', '4000', '3000', '1500', '1000', '1000'];
    const items = amounts
      .map((amount) => mobileRequest({ amount }))
      .map((request) => ({ referenceId: request.referenceId, request }));
    // Later items reach the store sooner, as a network's jitter may have it: only running them in order keeps the order.
    const delayOf = new Map(items.map((item, i) => [item.referenceId, (items.length - i) * 3]));
    const batches = new DisbursementBatches({
      pay: unused,
      create: async (m, request, requestId, actor) => {
        await new Promise((resolve) => setTimeout(resolve, delayOf.get(request.referenceId)));
        return d.service.create(m, request, requestId, actor);
      },
      getMany: (m, ids) => d.service.getMany(m, ids),
    });
    const results = await batches.createAll(controlled, items, undefined, alice);
    // userDailyLimit 20000: 4000 x4 + 3000 = 19000, then 1500 is refused and 1000 still fits, then nothing.
    expect(results.map((r) => ('record' in r ? r.record.status : r.error.code))).toEqual([
      'PENDING',
      'PENDING',
      'PENDING',
      'PENDING',
      'PENDING',
      'LIMIT_EXCEEDED',
      'PENDING',
      'LIMIT_EXCEEDED',
    ]);
  });

  it('20 concurrent creates never pass the limit', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create('4000', { id: `user-${i}`, name: `user-${i}` })),
    );
    expect(outcomes.filter((o) => !(o instanceof GatewayError))).toHaveLength(15);
    expect(outcomes.filter((o) => o instanceof GatewayError)).toEqual(
      Array(5).fill(
        expect.objectContaining({ code: 'LIMIT_EXCEEDED', details: expect.objectContaining({ remaining: '0' }) }),
      ),
    );
    expect(d.provider.creates).toHaveLength(15);
  });
});

describe('shutdown', () => {
  it('an approval arriving after shutdown began decides nothing and sends nothing', async () => {
    const d = domain();
    const request = mobileRequest({ amount: '6000' });
    await d.service.create(controlled, request, undefined, alice);
    await d.service.drain(0);
    expect(await attempt(d.service.approve(controlled, request.referenceId, bob))).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(await d.store.get(controlled.id, request.referenceId)).toMatchObject({
      status: 'AWAITING_APPROVAL',
      sending: false,
    });
    expect(d.provider.creates).toHaveLength(0);
  });
});
