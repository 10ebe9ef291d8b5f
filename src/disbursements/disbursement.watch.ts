import { Repeater } from '@repeaterjs/repeater';
import { Disbursement, isFinal } from './disbursement.model';
import { DisbursementEvents, DisbursementStore, OnListening } from './disbursement.ports';
import { STOPPED, untilStopped } from './wait.interrupt';

/**
 * One payout's states for a subscriber: the current one first (when known), then each change,
 * ending after a final status. Subscribes before reading, so nothing published in between is lost,
 * and drops anything not newer than what it has already sent.
 *
 * A Repeater, not an async generator: graphql-ws awaits `return()` when a socket closes, and a
 * generator's `return()` waits until its pending `await` settles (for a payout that never changes,
 * never). A Repeater's `return()` answers at once, ends the pending `next()`, and resolves `stop`,
 * which every wait below races, so the listener is removed whatever the watcher was waiting on.
 */
export function watchDisbursement(
  store: DisbursementStore,
  events: DisbursementEvents,
  merchantId: string,
  referenceId: string,
  onListening: OnListening = () => {},
): AsyncIterableIterator<Disbursement> {
  return new Repeater<Disbursement>(async (push, stop) => {
    const waits = untilStopped(stop);
    const changes = events.watch(merchantId, referenceId)[Symbol.asyncIterator]();
    // The first next() starts listening; the store is read only once listening is active.
    let pending = changes.next();
    try {
      if ((await waits.wait(events.listening(merchantId, referenceId))) === STOPPED) return;
      onListening();
      const current = await waits.wait(store.get(merchantId, referenceId));
      if (current === STOPPED) return;
      let seen = -1;
      // A claim whose create is still in flight says nothing yet, unless a callback already did.
      if (current && !(current.sending && current.status === 'UNKNOWN')) {
        seen = current.version;
        await push(current);
        if (isFinal(current.status)) return;
      }
      for (;;) {
        const next = await waits.wait(pending);
        if (next === STOPPED || next.done) return;
        pending = changes.next();
        if (next.value.version <= seen) continue;
        seen = next.value.version;
        await push(next.value);
        if (isFinal(next.value.status)) return;
      }
    } finally {
      // A Repeater ends only when stopped, not when this function returns.
      stop();
      await changes.return?.();
    }
  });
}
