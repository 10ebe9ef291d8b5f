import {
  AccountDetails,
  Beneficiary,
  BeneficiaryDraft,
  detailsFingerprint,
} from '../../src/disbursements/beneficiary.model';
import { GatewayError } from '../../src/disbursements/disbursement.errors';
import { DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { Merchant } from '../../src/disbursements/disbursement.ports';
import { Actor, PayoutControls } from '../../src/disbursements/payout.controls';
import { domain, Domain } from '../support/domain';

/** The beneficiary book's rules on the real domain and embedded store, with the fake provider. */
const alice: Actor = { id: 'token:alice', name: 'alice' };
const bob: Actor = { id: 'token:bob', name: 'bob' };

const mobile = (accountNumber = '260971234567'): BeneficiaryDraft => ({
  name: 'Supplier A',
  details: { channel: 'MOBILE_MONEY', accountNumber },
});
const bank = (accountNumber = '1234567890123'): BeneficiaryDraft => ({
  name: 'Supplier B',
  details: {
    channel: 'BANK',
    accountNumber,
    swiftCode: 'ZNCOZMLU',
    firstName: 'Jane',
    lastName: 'Banda',
    accountHolderName: 'Jane Banda',
    phoneNumber: '260971234567',
  },
});
const merchantWith = (controls: Partial<PayoutControls> = {}): Merchant => ({
  id: 'm-ben',
  apiKey: 'key',
  controls: { approvalTtlSeconds: 3600, ...controls },
});

/** The request a payout input would make for these details (the edge validates it in the gateway). */
const request =
  (referenceId: string, amount = '10') =>
  (details: AccountDetails): DisbursementRequest =>
    details.channel === 'BANK'
      ? { ...details, referenceId, amount, currency: 'ZMW', narration: 'invoice' }
      : { ...details, referenceId, amount, currency: 'ZMW' };

async function outcome<T>(call: Promise<T>): Promise<T | GatewayError> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
const codeOf = (o: unknown) => (o instanceof GatewayError ? o.code : (o as { status: string }).status);

describe('beneficiary book', () => {
  let clock: number;
  let d: Domain;
  beforeEach(() => {
    clock = Date.parse('2026-11-26T10:00:00Z');
    d = domain({ now: () => new Date(clock) });
  });
  const pay = (m: Merchant, b: Beneficiary, referenceId: string, amount?: string) =>
    outcome(
      d.service.payBeneficiary(
        m,
        { beneficiaryId: b.id, referenceId, build: request(referenceId, amount) },
        undefined,
        alice,
      ),
    );

  it.each([
    ['no controls: ACTIVE', {}, 'ACTIVE'],
    ['beneficiaryApproval: AWAITING_APPROVAL', { beneficiaryApproval: true }, 'AWAITING_APPROVAL'],
  ])('created with %s', async (_name, controls, status) => {
    const b = await d.service.createBeneficiary(merchantWith(controls), mobile(), alice);
    expect(b).toMatchObject({ status, createdBy: 'alice', changedAt: '2026-11-26T10:00:00.000Z' });
  });

  it.each([
    // Issue 44 item 10d: a name alone must not pass unseen, or an approved payee takes a trusted one's name.
    [
      'a name change alone makes it AWAITING_APPROVAL',
      { name: 'Renamed', details: mobile().details },
      'AWAITING_APPROVAL',
    ],
    [
      'an account number change makes it AWAITING_APPROVAL',
      { name: 'Supplier A', details: mobile('260971111999').details },
      'AWAITING_APPROVAL',
    ],
  ])('under beneficiaryApproval, %s', async (_name, draft, status) => {
    const m = merchantWith({ beneficiaryApproval: true });
    const created = await d.service.createBeneficiary(m, mobile(), alice);
    await d.service.approveBeneficiary(m, created.id, bob, detailsFingerprint(created));
    expect((await d.service.updateBeneficiary(m, created.id, draft, alice)).status).toBe(status);
  });

  it('an approval approves the details its approver saw: changed since, STALE_APPROVAL naming expectedDetails, and it still awaits approval', async () => {
    const m = merchantWith({ beneficiaryApproval: true });
    const b = await d.service.createBeneficiary(m, mobile(), alice);
    const seen = detailsFingerprint(b);
    await d.service.updateBeneficiary(m, b.id, mobile('260971111999'), alice);
    const stale = await outcome(d.service.approveBeneficiary(m, b.id, bob, seen));
    expect(stale).toMatchObject({
      code: 'STALE_APPROVAL',
      details: { beneficiaryId: b.id, fields: ['expectedDetails'] },
    });
    expect(await d.service.beneficiary(m, b.id)).toMatchObject({ status: 'AWAITING_APPROVAL' });
  });

  it('awaiting approval: unpayable (INVALID_STATE naming it), not approvable by whoever set it (FORBIDDEN), then payable once another approves', async () => {
    const m = merchantWith({ beneficiaryApproval: true });
    const b = await d.service.createBeneficiary(m, bank(), alice);
    const refused = await pay(m, b, 'r-1');
    expect(refused).toMatchObject({ code: 'INVALID_STATE', details: { beneficiaryId: b.id } });
    expect(codeOf(await outcome(d.service.approveBeneficiary(m, b.id, alice, detailsFingerprint(b))))).toBe(
      'FORBIDDEN',
    );
    expect(await d.service.approveBeneficiary(m, b.id, bob, detailsFingerprint(b))).toMatchObject({
      status: 'ACTIVE',
      approvedBy: 'bob',
    });
    expect(codeOf(await pay(m, b, 'r-1'))).toBe('PENDING');
    expect(d.provider.creates[0]).toMatchObject({
      accountNumber: '1234567890123',
      swiftCode: 'ZNCOZMLU',
      firstName: 'Jane',
    });
  });

  it.each([
    ['within newPayeeHoldSeconds of a change: held whatever the amount', 0, 'AWAITING_APPROVAL'],
    ['once the window passed: sent', 61_000, 'PENDING'],
  ])('%s', async (_name, later, status) => {
    const m = merchantWith({ newPayeeHoldSeconds: 60, approvalAbove: { ZMW: '1000' } });
    const b = await d.service.createBeneficiary(m, mobile(), alice);
    clock += later;
    const paid = await pay(m, b, `r-${later}`, '1');
    expect(codeOf(paid)).toBe(status);
    if (status === 'AWAITING_APPROVAL')
      expect((paid as { history: { message?: string }[] }).history[0].message).toMatch(/new payee/);
  });

  it('a payout keeps the details it was made with; a retry is that payout, whatever the beneficiary became', async () => {
    const m = merchantWith();
    const b = await d.service.createBeneficiary(m, mobile(), alice);
    const first = await pay(m, b, 'r-keep');
    await d.service.updateBeneficiary(m, b.id, mobile('260971111999'), alice);
    const again = await pay(m, b, 'r-keep');
    expect(again).toMatchObject({ accountNumber: '260971234567', beneficiaryId: b.id });
    expect(again).toEqual(first);
    expect(d.provider.creates).toHaveLength(1);
  });

  it('archived: unpayable, its payouts stay; a duplicate of an active one is refused naming it, of an archived one allowed', async () => {
    const m = merchantWith();
    const b = await d.service.createBeneficiary(m, mobile(), alice);
    await pay(m, b, 'r-before');
    const dup = await outcome(d.service.createBeneficiary(m, { ...mobile(), name: 'Other' }, alice));
    expect(dup).toMatchObject({ code: 'BAD_USER_INPUT', details: { beneficiaryId: b.id } });
    await d.service.archiveBeneficiary(m, b.id, alice);
    expect(await pay(m, b, 'r-after')).toMatchObject({ code: 'INVALID_STATE', details: { status: 'ARCHIVED' } });
    expect(await d.store.get(m.id, 'r-before')).toBeDefined();
    expect((await d.service.createBeneficiary(m, mobile(), alice)).status).toBe('ACTIVE');
  });

  it("another merchant's beneficiary is unknown: not read, not paid, not changed", async () => {
    const b = await d.service.createBeneficiary(merchantWith(), mobile(), alice);
    const other: Merchant = { id: 'm-other', apiKey: 'k2' };
    expect(await d.service.beneficiary(other, b.id)).toBeUndefined();
    expect(codeOf(await pay(other, b, 'r-x'))).toBe('BAD_USER_INPUT');
    expect(codeOf(await outcome(d.service.archiveBeneficiary(other, b.id, alice)))).toBe('BAD_USER_INPUT');
    expect(d.provider.creates).toHaveLength(0);
  });

  it('a batch takes beneficiary items: each paid as payBeneficiary would, an unknown one its own error', async () => {
    const m = merchantWith();
    const b = await d.service.createBeneficiary(m, mobile(), alice);
    const item = (beneficiaryId: string, referenceId: string) => ({
      referenceId,
      payment: { beneficiaryId, referenceId, build: request(referenceId) },
    });
    const results = await d.service.createMany(m, [item(b.id, 'b-1'), item('ben_unknown', 'b-2')], undefined, alice);
    expect(results[0]).toMatchObject({ record: { status: 'PENDING', beneficiaryId: b.id } });
    expect(results[1]).toMatchObject({ error: { code: 'BAD_USER_INPUT', details: { beneficiaryId: 'ben_unknown' } } });
    expect(d.provider.creates.map((c) => c.referenceId)).toEqual(['b-1']);
  });

  it('lists with an exact totalCount, filtered by status, channel and search, page after page', async () => {
    const m = merchantWith();
    for (let i = 0; i < 5; i += 1) {
      clock += 1;
      await d.service.createBeneficiary(m, { ...mobile(`26097100000${i}`), name: `Mobile ${i}` }, alice);
    }
    await d.service.createBeneficiary(m, bank(), alice);
    const first = await d.service.beneficiaries(m, { limit: 2, filter: { channel: 'MOBILE_MONEY' } });
    expect(first).toMatchObject({ totalCount: 5, hasMore: true });
    const last = first.beneficiaries[1];
    const next = await d.service.beneficiaries(m, {
      limit: 10,
      after: { at: Date.parse(last.createdAt), id: last.id },
      filter: { channel: 'MOBILE_MONEY' },
    });
    expect(next.beneficiaries.map((b) => b.name)).toEqual(['Mobile 2', 'Mobile 3', 'Mobile 4']);
    expect((await d.service.beneficiaries(m, { limit: 10, filter: { search: 'mobile 3' } })).totalCount).toBe(1);
    expect((await d.service.beneficiaries(m, { limit: 10, filter: { search: '0003' } })).totalCount).toBe(1);
    expect((await d.service.beneficiaries(m, { limit: 10, filter: { status: 'ARCHIVED' } })).totalCount).toBe(0);
  });

  it('every change is audited in the chain with the account number masked', async () => {
    const m = merchantWith({ beneficiaryApproval: true });
    const b = await d.service.createBeneficiary(m, mobile(), alice);
    await d.service.approveBeneficiary(m, b.id, bob, detailsFingerprint(b));
    await d.service.updateBeneficiary(m, b.id, mobile('260971111999'), alice);
    await d.service.archiveBeneficiary(m, b.id, alice);
    const trail = await d.service.auditTrail(m, { first: 50, filter: {} });
    const entries = trail.entries.map((e) => [e.action, e.actor, e.detail]);
    expect(entries.map(([action]) => action)).toEqual([
      'BENEFICIARY_CREATED',
      'BENEFICIARY_APPROVED',
      'BENEFICIARY_CHANGED',
      'BENEFICIARY_ARCHIVED',
    ]);
    expect(entries[2][2]).toContain('mobile money ****4567 → mobile money ****1999');
    expect(JSON.stringify(entries)).not.toMatch(/260971234567|260971111999/);
    expect((await d.service.verifyAuditTrail(m)).verified).toBe(true);
  });
});
