import { Disbursement } from '../disbursements/disbursement.model';

/** A payout row as a write of this process left it: its record and the revision that write gave it. */
export interface RecentRow {
  record: Disbursement;
  revision: string;
}

/**
 * The payout rows this process wrote last, so its next write of one (a create's answer after its
 * claim, a callback after the answer) can go straight to the conditional write on the revision it
 * knows instead of reading the row first: one round trip instead of two. A row another replica wrote
 * since fails that write (its revision moved on) and is read as before, so a stale entry costs a
 * round trip, never a lost update. Bounded: the oldest entries go first.
 */
export class RecentRows {
  private readonly rows = new Map<string, RecentRow>();

  constructor(private readonly limit = 2048) {}

  get(merchantId: string, referenceId: string): RecentRow | undefined {
    return this.rows.get(keyOf(merchantId, referenceId));
  }

  set(merchantId: string, referenceId: string, row: RecentRow): void {
    const key = keyOf(merchantId, referenceId);
    this.rows.delete(key);
    this.rows.set(key, row);
    if (this.rows.size > this.limit) this.rows.delete(this.rows.keys().next().value as string);
  }

  forget(merchantId: string, referenceId: string): void {
    this.rows.delete(keyOf(merchantId, referenceId));
  }
}

const keyOf = (merchantId: string, referenceId: string) => JSON.stringify([merchantId, referenceId]);
