import { Repeater } from '@repeaterjs/repeater';
import { Disbursement } from './disbursement.model';
import { DisbursementEvents, OnListening } from './disbursement.ports';
import { STOPPED, untilStopped } from './wait.interrupt';

/**
 * Every change of a merchant's payouts, as it happens. A Repeater for the reasons given in
 * disbursement.watch.ts; it tells `onListening` once changes published anywhere reach it.
 */
export function watchMerchantUpdates(
  events: DisbursementEvents,
  merchantId: string,
  onListening: OnListening = () => {},
): AsyncIterableIterator<Disbursement> {
  return new Repeater<Disbursement>(async (push, stop) => {
    const waits = untilStopped(stop);
    const changes = events.watchMerchant(merchantId)[Symbol.asyncIterator]();
    // The first next() starts listening.
    let pending = changes.next();
    try {
      if ((await waits.wait(events.merchantListening(merchantId))) === STOPPED) return;
      onListening();
      for (;;) {
        const next = await waits.wait(pending);
        if (next === STOPPED || next.done) return;
        pending = changes.next();
        await push(next.value);
      }
    } finally {
      // A Repeater ends only when stopped, not when this function returns.
      stop();
      await changes.return?.();
    }
  });
}
