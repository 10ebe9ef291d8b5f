import { Disbursement } from '../../src/disbursements/disbursement.model';
import { DisbursementEvents } from '../../src/disbursements/disbursement.ports';
import { databasePerTest, Engine, StoreUnderTest } from '../support/engines';
import { bump, record, shownRecord, watching } from './store.fixtures';

/**
 * What every DisbursementEvents promises: each change a store of the engine logs reaches the
 * watchers of its payout and of its merchant, in order, and no one else.
 */
export function eventsContract(engine: Engine): void {
  const db = databasePerTest(engine);
  let events: DisbursementEvents;
  let store: StoreUnderTest;
  beforeEach(() => {
    events = db().events();
    store = db().store();
  });

  /** Stores a new payout its client sees at once: its first change. */
  const stored = async (overrides: Partial<Disbursement> = {}) => {
    const r = shownRecord(overrides);
    await store.insertIfAbsent(r);
    return r;
  };
  const changed = async (r: Disbursement, changes: Partial<Disbursement>) =>
    (await store.update(r.merchantId, r.referenceId, bump(changes)))!;

  it("delivers a change to the payout's watchers and its merchant's, as the record", async () => {
    const r = shownRecord({ referenceId: 'ref:1' });
    const payout = watching(events.watch(r.merchantId, r.referenceId));
    const merchant = watching(events.watchMerchant(r.merchantId));
    await events.listening(r.merchantId, r.referenceId);
    await events.merchantListening(r.merchantId);
    await store.insertIfAbsent(r);
    expect(await payout.first).toEqual(r);
    expect(await merchant.first).toEqual(r);
    await Promise.all([payout.stop(), merchant.stop()]);
  });

  it('delivers successive changes in order, to every watcher of the payout', async () => {
    const r = shownRecord();
    const watchers = [
      watching(events.watch(r.merchantId, r.referenceId)),
      watching(events.watch(r.merchantId, r.referenceId)),
    ];
    await events.listening(r.merchantId, r.referenceId);
    await store.insertIfAbsent(r);
    for (const status of ['SUCCESSFUL', 'FAILED'] as const) await changed(r, { status });
    for (const watcher of watchers) {
      expect((await watcher.take(3)).map((c) => [c?.version, c?.status])).toEqual([
        [1, 'PENDING'],
        [2, 'SUCCESSFUL'],
        [3, 'FAILED'],
      ]);
      await watcher.stop();
    }
  });

  it("tells no one about another merchant's or another payout's changes", async () => {
    const merchant = watching(events.watchMerchant('merchant-2'));
    const payout = watching(events.watch('merchant-2', 'shared-ref'));
    const otherPayout = watching(events.watch('merchant-1', 'sibling'));
    await events.merchantListening('merchant-2');
    await events.listening('merchant-2', 'shared-ref');
    await events.listening('merchant-1', 'sibling');
    await stored({ merchantId: 'merchant-1', referenceId: 'shared-ref' });
    const sibling = await stored({ merchantId: 'merchant-1', referenceId: 'sibling' });
    const theirs = await stored({ merchantId: 'merchant-2', referenceId: 'shared-ref' });
    // Changes arrive in the order logged, so a first event that is not `theirs` means another came first.
    expect(await merchant.first).toEqual(theirs);
    expect(await payout.first).toEqual(theirs);
    expect(await otherPayout.first).toEqual(sibling);
    await Promise.all([merchant.stop(), payout.stop(), otherPayout.stop()]);
  });

  it('ends a stopped watcher, while the others go on hearing', async () => {
    // A claim: its insert is no change, so the first event is the first update.
    const r = record();
    await store.insertIfAbsent(r);
    const [stopping, going] = [
      watching(events.watchMerchant(r.merchantId)),
      watching(events.watchMerchant(r.merchantId)),
    ];
    await events.merchantListening(r.merchantId);
    await changed(r, { status: 'SUCCESSFUL' });
    expect((await stopping.first)?.version).toBe(2);
    await stopping.stop();
    await changed(r, { message: 'after the stop' });
    expect(await stopping.next()).toBeUndefined();
    expect((await going.take(2)).map((c) => c?.version)).toEqual([2, 3]);
    await going.stop();
  });

  it('is healthy', async () => {
    await events.merchantListening('merchant-1');
    expect(await events.healthy()).toBe(true);
  });
}
