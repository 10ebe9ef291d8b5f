import { Disbursement } from '../../src/disbursements/disbursement.model';
import { DisbursementEvents } from '../../src/disbursements/disbursement.ports';
import { record } from './store.contract';

export interface EventsUnderTest {
  events: DisbursementEvents;
  /** Resolves once `count` watchers are listening: Redis subscribes asynchronously. */
  listening(count: number): Promise<void>;
  /** Closes the events and whatever else `make` opened. */
  cleanup(): Promise<void>;
}

/** Starts watching: the iterator subscribes on its first `next()`, whose answer is the first event. */
export function watching(iterable: AsyncIterable<Disbursement>) {
  const iterator = iterable[Symbol.asyncIterator]();
  const value = (result: IteratorResult<Disbursement>): Disbursement | undefined =>
    result.done ? undefined : result.value;
  const first = iterator.next().then(value);
  return { first, next: () => iterator.next().then(value), stop: () => iterator.return?.() };
}

/** What every DisbursementEvents promises; `make` gives each test events of their own. */
export function eventsContract(name: string, make: () => Promise<EventsUnderTest>): void {
  describe(`${name} events contract`, () => {
    let events: DisbursementEvents;
    let listening: (count: number) => Promise<void>;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ events, listening, cleanup } = await make());
    });
    afterEach(async () => {
      await cleanup();
    });

    it("delivers a change to the payout's watchers and its merchant's, as the record", async () => {
      const r = record({ referenceId: 'ref:1', status: 'SUCCESSFUL', version: 3 });
      const payout = watching(events.watch(r.merchantId, r.referenceId));
      const merchant = watching(events.watchMerchant(r.merchantId));
      await listening(2);
      await events.publish(r);
      expect(await payout.first).toEqual(r);
      expect(await merchant.first).toEqual(r);
      await Promise.all([payout.stop(), merchant.stop()]);
    });

    it('delivers successive changes in order', async () => {
      const r = record();
      const payout = watching(events.watch(r.merchantId, r.referenceId));
      await listening(1);
      for (const version of [2, 3, 4]) await events.publish({ ...r, version });
      expect((await payout.first)?.version).toBe(2);
      expect((await payout.next())?.version).toBe(3);
      expect((await payout.next())?.version).toBe(4);
      await payout.stop();
    });

    it("tells no one about another merchant's or another payout's changes", async () => {
      const mine = record({ merchantId: 'merchant-1', referenceId: 'shared-ref' });
      const theirs = record({ merchantId: 'merchant-2', referenceId: 'shared-ref' });
      const sibling = record({ merchantId: 'merchant-1', referenceId: 'sibling' });
      const merchant = watching(events.watchMerchant('merchant-2'));
      const payout = watching(events.watch('merchant-2', 'shared-ref'));
      const otherPayout = watching(events.watch('merchant-1', 'sibling'));
      await listening(3);
      await events.publish(mine);
      await events.publish(sibling);
      await events.publish(theirs);
      // Changes arrive in the order published, so a first event that is not `mine` means `mine` never came.
      expect(await merchant.first).toEqual(theirs);
      expect(await payout.first).toEqual(theirs);
      expect(await otherPayout.first).toEqual(sibling);
      await Promise.all([merchant.stop(), payout.stop(), otherPayout.stop()]);
    });

    it('is healthy', async () => {
      expect(await events.healthy()).toBe(true);
    });
  });
}
