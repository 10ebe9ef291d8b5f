import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementStore } from '../disbursements/disbursement.ports';

const keyOf = (merchantId: string, referenceId: string) => `${merchantId}\u0000${referenceId}`;

/** One process's store. Records are replaced, never mutated, so a reader never sees half an update. */
export class MemoryStore implements DisbursementStore {
  private readonly records = new Map<string, Disbursement>();
  /** Store round trips, so tests and metrics can see batching at work. */
  reads = 0;

  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    this.reads += 1;
    return this.records.get(keyOf(merchantId, referenceId));
  }

  async getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    this.reads += 1;
    return referenceIds.map((id) => this.records.get(keyOf(merchantId, id)));
  }

  async insertIfAbsent(record: Disbursement): Promise<Disbursement | undefined> {
    const key = keyOf(record.merchantId, record.referenceId);
    const existing = this.records.get(key);
    if (existing) return existing;
    this.records.set(key, record);
    return undefined;
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
  ): Promise<Disbursement | undefined> {
    const key = keyOf(merchantId, referenceId);
    const current = this.records.get(key);
    if (!current) return undefined;
    const next = change(current);
    if (next) this.records.set(key, next);
    return next ?? current;
  }

  async remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void> {
    const key = keyOf(merchantId, referenceId);
    const current = this.records.get(key);
    if (current && expected(current)) this.records.delete(key);
  }
}
