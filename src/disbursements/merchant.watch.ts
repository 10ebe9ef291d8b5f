import { Repeater } from '@repeaterjs/repeater';
import { Disbursement } from './disbursement.model';
import { DisbursementEvents, OnListening } from './disbursement.ports';

/** What a wait raced against the watcher's end answers when the watcher ended first. */
const STOPPED = Symbol('stopped');

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
    const stopped = stop.then((): typeof STOPPED => STOPPED);
    const changes = events.watchMerchant(merchantId)[Symbol.asyncIterator]();
    // The first next() starts listening.
    let pending = changes.next();
    try {
      if ((await Promise.race([events.merchantListening(merchantId), stopped])) === STOPPED) return;
      onListening();
      for (;;) {
        const next = await Promise.race([pending, stopped]);
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
