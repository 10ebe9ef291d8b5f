import { Disbursement } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError } from '../../src/disbursements/disbursement.ports';
import { ReconciliationStepper } from '../../src/disbursements/reconciliation.stepper';
import { Domain, domain, merchant, mobileRequest } from '../support/domain';

const T0 = Date.parse('2026-11-25T10:00:00Z');

function setup() {
  const clock = { at: T0 };
  const d = domain({ now: () => new Date(clock.at) });
  const stepper = new ReconciliationStepper({
    ...d.service.reconciliation,
    merchantById: (id) => (id === merchant.id ? merchant : undefined),
    intervalMs: 60_000,
  });
  return { d, clock, stepper };
}

const window = (fromMs: number, toMs: number) => ({ from: new Date(fromMs), to: new Date(toMs) });

/** Steps the stepper until the run ends. */
async function finish(d: Domain, stepper: ReconciliationStepper, id: string, m: Merchant = merchant) {
  for (let i = 0; i < 100; i += 1) {
    const found = await d.service.reconciliationRun(m, id);
    if (found && found.run.state !== 'RUNNING') return found;
    await stepper.stepOne();
  }
  throw new Error('the run did not end');
}

async function pending(d: Domain, overrides: Record<string, string> = {}): Promise<Disbursement> {
  return d.service.create(merchant, mobileRequest(overrides));
}

describe('a reconciliation run compares each payout of the window with the provider', () => {
  it.each<[string, (d: Domain, record: Disbursement) => void, Record<string, unknown> | undefined, string]>([
    [
      'a payout the provider settled without calling back: applied, RECONCILED, resolved',
      (d, r) => d.provider.settle(r.referenceId, 'Successful'),
      { kind: 'STATUS_DIFFERS', gatewayStatus: 'PENDING', providerStatus: 'SUCCESSFUL', resolved: true },
      'SUCCESSFUL',
    ],
    ['a payout both agree on: nothing to report', () => undefined, undefined, 'PENDING'],
    [
      'another amount at the provider: reported, never applied',
      (d, r) =>
        d.provider.ledger.set(r.referenceId, {
          ...d.provider.ledger.get(r.referenceId)!,
          amount: '1.00',
          status: 'SUCCESSFUL',
        }),
      { kind: 'AMOUNT_DIFFERS', gatewayStatus: 'PENDING', providerStatus: 'SUCCESSFUL', resolved: false },
      'PENDING',
    ],
    [
      'a confirmed payout the provider no longer has: reported',
      (d, r) => d.provider.ledger.delete(r.referenceId),
      { kind: 'MISSING_AT_PROVIDER', gatewayStatus: 'PENDING', providerStatus: null, resolved: false },
      'PENDING',
    ],
  ])('%s', async (_name, change, discrepancy, status) => {
    const { d, clock, stepper } = setup();
    const record = await pending(d);
    change(d, record);
    clock.at += 1000;
    const run = await d.service.startReconciliation(merchant, window(T0 - 1000, T0 + 1000));
    const { run: done, discrepancies } = await finish(d, stepper, run.id);
    expect(done).toMatchObject({ state: 'DONE', total: 1, checked: 1 });
    expect(discrepancies).toEqual(discrepancy ? [{ referenceId: record.referenceId, ...discrepancy }] : []);
    const after = (await d.store.get(merchant.id, record.referenceId))!;
    expect(after.status).toBe(status);
    if (discrepancy?.resolved) {
      expect(after.history.at(-1)).toMatchObject({ source: 'RECONCILED', status: 'SUCCESSFUL' });
      const audit = await d.service.auditTrail(merchant, { first: 10, filter: { referenceId: record.referenceId } });
      expect(audit.entries.at(-1)).toMatchObject({ action: 'RECONCILED', status: 'SUCCESSFUL' });
      expect(d.published.at(-1)).toMatchObject({ referenceId: record.referenceId, status: 'SUCCESSFUL' });
    }
  });

  it('a final gateway status the provider contradicts is reported, never overwritten', async () => {
    const { d, clock, stepper } = setup();
    const record = await pending(d);
    d.provider.settle(record.referenceId, 'Successful');
    await d.service.applyCallback(merchant, d.provider.ledger.get(record.referenceId)!, { verified: true });
    d.provider.settle(record.referenceId, 'Failed');
    clock.at += 1000;
    const run = await d.service.startReconciliation(merchant, window(T0 - 1000, T0 + 1000));
    const { discrepancies } = await finish(d, stepper, run.id);
    expect(discrepancies).toEqual([
      {
        referenceId: record.referenceId,
        kind: 'STATUS_DIFFERS',
        gatewayStatus: 'SUCCESSFUL',
        providerStatus: 'FAILED',
        resolved: false,
      },
    ]);
    expect((await d.store.get(merchant.id, record.referenceId))?.status).toBe('SUCCESSFUL');
  });

  it('runs one at a time per merchant', async () => {
    const { d } = setup();
    const first = await d.service.startReconciliation(merchant, window(T0 - 1000, T0 + 1000));
    await expect(d.service.startReconciliation(merchant, window(T0 - 1000, T0 + 1000))).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining(first.id),
    });
    const other: Merchant = { id: 'm-other', apiKey: 'key-other' };
    await expect(d.service.startReconciliation(other, window(T0 - 1000, T0 + 1000))).resolves.toMatchObject({
      state: 'RUNNING',
    });
    expect(await d.service.reconciliationRun(other, first.id)).toBeUndefined();
  });

  it('checks every payout once across steps, waiting out a provider that may not be asked now', async () => {
    const { d, clock, stepper } = setup();
    for (let i = 0; i < 30; i += 1) await pending(d);
    clock.at += 1000;
    const run = await d.service.startReconciliation(merchant, window(T0 - 1000, T0 + 1000));
    await stepper.stepOne();
    let progress = (await d.service.reconciliationRun(merchant, run.id))!.run;
    expect(progress).toMatchObject({ state: 'RUNNING', total: 30, checked: 25 });
    // The provider budget holds reads back: the run waits, loses nothing and repeats nothing.
    d.provider.checkFailure = new ProviderError('rate-limited', 'Not sent: budget', { retryAfter: 1 });
    await stepper.stepOne();
    progress = (await d.service.reconciliationRun(merchant, run.id))!.run;
    expect(progress).toMatchObject({ state: 'RUNNING', checked: 25 });
    d.provider.checkFailure = undefined;
    const checksBefore = d.provider.checks.length;
    const { run: done } = await finish(d, stepper, run.id);
    expect(done).toMatchObject({ state: 'DONE', checked: 30 });
    expect(d.provider.checks.length - checksBefore).toBe(5);
  });
});

describe('the balance check', () => {
  it('explains the wallet by the payouts accepted and refunded between two readings; the rest is unexplained', async () => {
    const { d, clock, stepper } = setup();
    d.provider.wallet = { amount: '1000', currency: 'ZMW' };
    const first = await d.service.startReconciliation(merchant, window(T0 - 1000, T0));
    const opened = await finish(d, stepper, first.id);
    expect(opened.run.balance).toMatchObject({ opening: '1000.00', closing: '1000.00', explained: '0.00' });

    clock.at += 1000;
    await pending(d, { amount: '150.75' });
    const refunded = await pending(d, { amount: '10' });
    d.provider.settle(refunded.referenceId, 'Failed');
    await d.service.applyCallback(merchant, d.provider.ledger.get(refunded.referenceId)!, { verified: true });
    // The provider took 150.75 and 10, gave 10 back, and 49.25 left the wallet some other way.
    d.provider.wallet = { amount: '800', currency: 'ZMW' };
    clock.at += 1000;
    const second = await d.service.startReconciliation(merchant, window(T0, T0 + 5000));
    const { run } = await finish(d, stepper, second.id);
    expect(run.balance).toEqual({
      currency: 'ZMW',
      opening: '1000.00',
      closing: '800.00',
      explained: '-150.75',
      unexplained: '-49.25',
    });
  });
});

describe('statements and exports', () => {
  it('sums a window exactly per currency and status, counting only payouts created in it', async () => {
    const { d, clock } = setup();
    for (const amount of ['0.10', '0.10', '0.10']) await pending(d, { amount });
    await pending(d, { amount: '5', currency: 'USD' });
    d.provider.script.push('Failed');
    await pending(d, { amount: '7.25' });
    clock.at = T0 + 60_000;
    await pending(d, { amount: '999' });
    const lines = await d.service.statement(merchant, window(T0, T0 + 60_000));
    expect(lines).toEqual([
      { currency: 'USD', status: 'PENDING', count: 1, amount: '5.00', amountMinor: 500 },
      { currency: 'ZMW', status: 'FAILED', count: 1, amount: '7.25', amountMinor: 725 },
      { currency: 'ZMW', status: 'PENDING', count: 3, amount: '0.30', amountMinor: 30 },
    ]);
    await expect(d.service.statement(merchant, window(T0, T0))).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('exports exactly the window’s payouts of the merchant, oldest first, and audits the export', async () => {
    const { d, clock } = setup();
    const made: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      made.push((await pending(d)).referenceId);
      clock.at += 10;
    }
    await d.service.create({ id: 'm-other', apiKey: 'key-other' }, mobileRequest());
    const alice = { id: 'alice', name: 'alice' };
    const rows: string[] = [];
    for await (const record of d.service.exportPayouts(merchant, alice, window(T0, T0 + 1000)))
      rows.push(record.referenceId);
    expect(rows).toEqual(made);
    const audit = await d.service.auditTrail(merchant, { first: 10, filter: { actions: ['EXPORTED'] } });
    expect(audit.entries).toEqual([
      expect.objectContaining({ action: 'EXPORTED', actor: 'alice', detail: expect.stringContaining('3 payouts') }),
    ]);
  });
});
