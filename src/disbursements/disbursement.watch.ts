import { Disbursement, isFinal } from './disbursement.model';
import { DisbursementEvents, DisbursementStore } from './disbursement.ports';

/**
 * One payout's states for a subscriber: the current one first (when known), then each change,
 * ending after a final status. Subscribes before reading, so nothing published in between is lost,
 * and drops anything not newer than what it has already sent.
 */
export async function* watchDisbursement(
  store: DisbursementStore,
  events: DisbursementEvents,
  merchantId: string,
  referenceId: string,
): AsyncGenerator<Disbursement> {
  const changes = events.watch(merchantId, referenceId)[Symbol.asyncIterator]();
  // The first next() starts listening; the store is read only once listening is active.
  let pending = changes.next();
  try {
    await events.listening(merchantId, referenceId);
    let seen = -1;
    const current = await store.get(merchantId, referenceId);
    // A claim whose create is still in flight says nothing yet, unless a callback already did.
    if (current && !(current.sending && current.status === 'UNKNOWN')) {
      seen = current.version;
      yield current;
      if (isFinal(current.status)) return;
    }
    for (;;) {
      const next = await pending;
      if (next.done) return;
      pending = changes.next();
      if (next.value.version <= seen) continue;
      seen = next.value.version;
      yield next.value;
      if (isFinal(next.value.status)) return;
    }
  } finally {
    await changes.return?.();
  }
}
