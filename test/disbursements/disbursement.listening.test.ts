import { Disbursement } from '../../src/disbursements/disbursement.model';
import { OnListening } from '../../src/disbursements/disbursement.ports';
import { PubSubEvents } from '../../src/events/pubsub.events';
import { domain, merchant, mobileRequest } from '../support/domain';

/** In-process events whose "listening" answers only when the test says so, as a listening connection still opening would. */
class GatedEvents extends PubSubEvents {
  private open!: () => void;
  readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  release(): void {
    this.open();
  }
  override listening(): Promise<void> {
    return this.gate;
  }
  override merchantListening(): Promise<void> {
    return this.gate;
  }
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((r) => setImmediate(r));
};

type Subscribe = (
  d: ReturnType<typeof domain>,
  referenceId: string,
  onListening: OnListening,
) => Promise<AsyncIterableIterator<unknown>>;

describe('a subscription is live once it says so, and hears every change from then on', () => {
  it.each<[string, Subscribe, (value: unknown) => Disbursement]>([
    [
      'disbursementUpdated (one payout)',
      async (d, ref, on) => d.service.watch(merchant, ref, on),
      (value) => value as Disbursement,
    ],
    [
      'disbursementUpdates (every payout)',
      async (d, _ref, on) => d.service.watchMerchant(merchant, on),
      (value) => value as Disbursement,
    ],
    [
      'disbursementEvents (the change log)',
      (d, _ref, on) => d.service.changes(merchant, undefined, on),
      (value) => (value as { record: Disbursement }).record,
    ],
  ])('%s', async (_name, subscribe, recordOf) => {
    const events = new GatedEvents();
    const d = domain({ events });
    const request = mobileRequest({ accountNumber: '260971234222' });
    let told = 0;
    const subscription = await subscribe(d, request.referenceId, () => (told += 1));
    const first = subscription.next();
    await new Promise((r) => setImmediate(r));
    // Not live while the events cannot yet deliver what is published elsewhere.
    expect(told).toBe(0);
    events.release();
    await until(() => told > 0);
    expect(told).toBe(1);
    await d.service.create(merchant, request);
    const { value } = await first;
    expect(recordOf(value)).toMatchObject({ referenceId: request.referenceId, status: 'PENDING' });
    await subscription.return?.();
    expect(told).toBe(1);
  });

  it('a subscription ended before it was live is never told it is', async () => {
    const events = new GatedEvents();
    const d = domain({ events });
    let told = 0;
    const subscription = d.service.watchMerchant(merchant, () => (told += 1));
    const first = subscription.next();
    await subscription.return?.();
    await expect(first).resolves.toEqual({ done: true, value: undefined });
    events.release();
    await new Promise((r) => setImmediate(r));
    expect(told).toBe(0);
  });
});
