import { Disbursement, isFinal } from './disbursement.model';
import { DisbursementEvents, DisbursementStore } from './disbursement.ports';
import { isPublished } from './disbursement.record';

export interface Written {
  /** The record as stored afterwards; undefined when there is none. */
  stored?: Disbursement;
  /** Whether this write changed something a client sees (and was published). */
  changed: boolean;
}

/**
 * The one way a record changes: stored atomically, then published when its version moved, then
 * reported once to `onFinal` when it has just become final.
 */
export class RecordWriter {
  constructor(
    private readonly store: DisbursementStore,
    private readonly events: DisbursementEvents,
    private readonly onFinal?: (record: Disbursement) => void,
  ) {}

  async change(merchantId: string, referenceId: string, change: (current: Disbursement) => Disbursement | undefined): Promise<Written> {
    let before: Disbursement | undefined;
    let after: Disbursement | undefined;
    // The store may run `change` more than once (Redis retries on a conflicting write): only the last run counts.
    const stored = await this.store.update(merchantId, referenceId, (current) => {
      before = current;
      after = change(current);
      return after;
    });
    const changed = after !== undefined && stored !== undefined && isPublished(before, stored);
    if (changed && stored) {
      await this.events.publish(stored);
      if (before && !isFinal(before.status) && isFinal(stored.status)) this.onFinal?.(stored);
    }
    return { stored, changed };
  }
}
