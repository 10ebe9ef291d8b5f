import { Disbursement } from '../disbursements/disbursement.model';

/** A payout row as this process last wrote or read it: its record, its text, and its revision. */
export interface RecentRow {
  record: Disbursement;
  written: string;
  revision: string;
}

/**
 * The payout rows this process wrote or read last, so its next write of one (a create's answer after
 * its claim, a callback after the answer, an approval after the read that found the payee) can go straight to the conditional write on the revision and
 * the record text it knows instead of reading the row first: one round trip instead of two. A row
 * another replica wrote since (its revision moved on), or that was changed behind the gateway's back
 * (its text differs), fails that write and is read as before, so a stale entry costs a round trip,
 * never a lost update or an unseen change. Bounded: the oldest entries go first.
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
