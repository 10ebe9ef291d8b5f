import { Disbursement } from './disbursement.model';
import { AuditDraft } from './audit.entry';
import { burstSummary, countRepeats } from './audit.repeats';
import { AuditRule, DisbursementStore } from './disbursement.ports';
import { isPublished } from './disbursement.record';
import { LimitRefusal, ReservationCaps } from './payout.controls';
import { becameFinal } from './relay.job';

export interface Written {
  /** The record as stored afterwards; undefined when there is none. */
  stored?: Disbursement;
  /** Whether this write changed something a client sees (and so was logged and published). */
  changed: boolean;
}

export interface Inserted {
  /** The record already stored under that referenceId; nothing was written. */
  existing?: Disbursement;
  /** A payout limit refused the record; nothing was written. */
  refused?: LimitRefusal;
}

/**
 * The one way a record is written: stored atomically with the audit entries that record it (the
 * store logs and publishes a change a client can see, and queues the relay of a record made final),
 * then reported once to `onFinal` when it has just become final. Use cases never write through the
 * store themselves. Identical audit entries
 * about a payout in a burst are counted on it and summarised once (audit.repeats.ts).
 */
export class RecordWriter {
  constructor(
    private readonly store: DisbursementStore,
    private readonly onFinal?: (record: Disbursement) => void,
  ) {}

  async change(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
    audit?: AuditRule,
  ): Promise<Written> {
    let before: Disbursement | undefined;
    let after: Disbursement | undefined;
    // Set with each run of the change, which the store may repeat: the entries of the run it stores.
    let entries: readonly AuditDraft[] = [];
    const stored = await this.store.update(
      merchantId,
      referenceId,
      (current) => {
        before = current;
        after = change(current);
        entries = [];
        if (after && audit) ({ record: after, entries } = countRepeats(current, after, audit(current, after)));
        return after;
      },
      audit && (() => entries),
    );
    const changed = after !== undefined && stored !== undefined && isPublished(before, stored);
    if (before && stored && becameFinal(before, stored)) this.onFinal?.(stored);
    return { stored, changed };
  }

  /**
   * A new record, stored only when none exists under its referenceId; with `caps`, only within the
   * payout limits, reserved in the same atomic step.
   */
  async insert(record: Disbursement, caps?: ReservationCaps, audit: readonly AuditDraft[] = []): Promise<Inserted> {
    return caps
      ? this.store.insertReserving(record, caps, audit)
      : { existing: await this.store.insertIfAbsent(record, audit) };
  }

  /** Removes a record no client has seen (a claim the provider never acted on) while `expected` still holds for it. */
  remove(
    merchantId: string,
    referenceId: string,
    expected: (current: Disbursement) => boolean,
    audit?: (current: Disbursement) => readonly AuditDraft[],
  ): Promise<void> {
    // Repeats counted on the record are summarised before it goes.
    return this.store.remove(merchantId, referenceId, expected, (current) => [
      ...burstSummary(current, current.auditTail),
      ...(audit?.(current) ?? []),
    ]);
  }

  /** Entries that record no write of a payout (a refusal before anything was stored, an export). */
  audit(merchantId: string, entries: readonly AuditDraft[]): Promise<void> {
    return this.store.appendAudit(merchantId, entries);
  }
}
