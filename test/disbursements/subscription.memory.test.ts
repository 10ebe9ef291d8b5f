import { domain, merchant, mobileRequest } from '../support/domain';
import { liveHeap } from '../support/heap';

const EVENTS = 20_000;
/** Bytes a subscription may keep per event it has passed on: none, but for what a collection leaves. */
const ALLOWED_PER_EVENT = 64;

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A subscription stays open for as long as its client does, so what it keeps per event it passes
 * on is a leak that grows with the merchant's traffic. Racing each wait against the subscriber's
 * end with Promise.race kept 500 to 800 bytes per event, until the subscriber left.
 */
describe('a long-lived subscription keeps nothing per event it passes on', () => {
  it('disbursementUpdates (every payout of the merchant)', async () => {
    const d = domain();
    const created = await d.service.create(merchant, mobileRequest({ accountNumber: '260971234222' }));
    const subscription = d.service.watchMerchant(merchant);
    const publish = (version: number) => d.events.publish({ ...created, version });
    // The first next() starts listening: settle it before measuring.
    const first = subscription.next();
    await turn();
    await publish(1_000_000);
    expect((await first).value).toMatchObject({ version: 1_000_000 });

    const before = liveHeap();
    for (let i = 1; i <= EVENTS; i += 1) {
      const next = subscription.next();
      await publish(1_000_000 + i);
      expect((await next).value.version).toBe(1_000_000 + i);
    }
    const perEvent = (liveHeap() - before) / EVENTS;
    await subscription.return?.();
    expect(perEvent).toBeLessThan(ALLOWED_PER_EVENT);
  });

  it('disbursementEvents (the change log), for changes it had already sent', async () => {
    const d = domain();
    const subscription = await d.service.changes(merchant, undefined);
    const first = subscription.next();
    await turn();
    const created = await d.service.create(merchant, mobileRequest({ accountNumber: '260971234222' }));
    expect((await first).value).toMatchObject({
      record: { referenceId: created.referenceId, version: created.version },
    });
    const next = subscription.next();

    const before = liveHeap();
    // Each publish rings the feed's bell; a change it has already sent needs no read and is not sent again.
    for (let i = 0; i < EVENTS; i += 1) {
      await d.events.publish(created);
      if (i % 100 === 0) await turn();
    }
    for (let i = 0; i < 10; i += 1) await turn();
    const perEvent = (liveHeap() - before) / EVENTS;
    await subscription.return?.();
    // Nothing new was sent: the pending next() ends with the subscription.
    await expect(next).resolves.toEqual({ done: true, value: undefined });
    expect(perEvent).toBeLessThan(ALLOWED_PER_EVENT);
  });
});
