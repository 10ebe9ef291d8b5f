import { DisbursementStore, LoggedChange } from './disbursement.ports';

/**
 * Change log reads shared by the subscribers of one process. When a change is published, every
 * live `disbursementEvents` subscriber of the merchant asks at once for the page after the same
 * position; one store read answers them all, so a merchant's many dashboards cost the store one
 * read per change, not one each. A shared read may have begun before the change that woke a
 * subscriber was logged: watchChanges then reads again on its own.
 */
export class SharedChangeReads {
  private readonly running = new Map<string, Promise<LoggedChange[]>>();

  constructor(private readonly store: Pick<DisbursementStore, 'changesAfter'>) {}

  changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]> {
    const key = `${merchantId}\u0000${position}\u0000${limit}`;
    const running = this.running.get(key);
    if (running) return running;
    const read = this.store.changesAfter(merchantId, position, limit).finally(() => this.running.delete(key));
    this.running.set(key, read);
    return read;
  }
}
