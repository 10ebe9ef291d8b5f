import { DisbursementStore, LoggedChange } from './disbursement.ports';

/** The last page read of one merchant's log, answered or in flight. */
interface Page {
  position: string;
  limit: number;
  changes: Promise<LoggedChange[]>;
}

/**
 * Change log reads shared by the subscribers of one process. When a change is published, every
 * live `disbursementEvents` subscriber of the merchant wakes and asks for the page after the same
 * position; the merchant's last page read (in flight or answered) answers them all, so a merchant's
 * many dashboards cost the store about one read per change, not one each. A shared page may have
 * been read before the change that woke a subscriber was logged: watchChanges then reads again on
 * its own, so a page is never trusted to be current. One page per merchant is kept.
 */
export class SharedChangeReads {
  private readonly pages = new Map<string, Page>();

  constructor(private readonly store: Pick<DisbursementStore, 'changesAfter'>) {}

  changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]> {
    const last = this.pages.get(merchantId);
    if (last && last.position === position && last.limit === limit) return last.changes;
    const page: Page = { position, limit, changes: this.store.changesAfter(merchantId, position, limit) };
    this.pages.set(merchantId, page);
    // A failed read is not kept: the next subscriber asks the store again.
    page.changes.catch(() => {
      if (this.pages.get(merchantId) === page) this.pages.delete(merchantId);
    });
    return page.changes;
  }
}
