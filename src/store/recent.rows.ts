import { StoredRow } from './payout.steps';

/**
 * The payout rows this process wrote or read last, so its next write of one (a create's answer after
 * its claim, a callback after the answer, an approval after the read that found the payee) can go
 * straight to the conditional write on the revision and the record text it knows instead of reading
 * the row first: one round trip instead of two. A row another replica wrote since (its revision moved
 * on), or that was changed behind the gateway's back (its text differs), fails that write and is read
 * as before, so a stale entry costs a round trip, never a lost update or an unseen change. Each record
 * kept is frozen, to its last array, so no caller can change what the next write starts from.
 * Bounded: the oldest entries go first.
 */
export class RecentRows {
  private readonly rows = new Map<string, StoredRow>();

  constructor(private readonly limit = 2048) {}

  get(merchantId: string, referenceId: string): StoredRow | undefined {
    return this.rows.get(keyOf(merchantId, referenceId));
  }

  set(merchantId: string, referenceId: string, row: StoredRow): void {
    const key = keyOf(merchantId, referenceId);
    this.rows.delete(key);
    this.rows.set(key, { ...row, record: frozen(row.record) });
    if (this.rows.size > this.limit) this.rows.delete(this.rows.keys().next().value as string);
  }

  forget(merchantId: string, referenceId: string): void {
    this.rows.delete(keyOf(merchantId, referenceId));
  }
}

const keyOf = (merchantId: string, referenceId: string) => JSON.stringify([merchantId, referenceId]);

/** The value and everything it holds made read-only (a record is plain JSON data: objects and arrays). */
function frozen<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) frozen(inner);
  return Object.freeze(value);
}
