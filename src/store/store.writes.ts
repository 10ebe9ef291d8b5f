import { AuditDraft, EntryKey, KeyedDraft, keyed } from '../disbursements/audit.entry';
import { dailyLimitRefusal } from '../disbursements/daily-limit.refusal';
import { Disbursement, isFinal } from '../disbursements/disbursement.model';
import { removedByRetention } from '../disbursements/audit.rules';
import { AuditRule, BeneficiaryWrite } from '../disbursements/disbursement.ports';
import { Beneficiary } from '../disbursements/beneficiary.model';
import { BookStatements, insertBeneficiary, updateBeneficiary } from './beneficiary.write';
import { isPublished, shownOnInsert } from '../disbursements/disbursement.record';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import { relayJobOf } from '../disbursements/relay.job';
import { payoutColumns } from './payout.row';
import { PayoutSteps, StoredRow } from './payout.steps';
import { RecentRows } from './recent.rows';

/**
 * The payout writes of every engine, written once: what each step writes and under what condition
 * (payout.steps.ts), and what is done when its condition no longer holds. An engine supplies only
 * `steps`, how it executes a step whole: PostgreSQL in one round trip, the embedded file in one
 * savepoint of its group commit. A change is read-modify-write on the row's revision: read the row
 * (or take it as this process last wrote it, recent.rows.ts), run the change, write it only at that
 * revision; a write that lost the race runs the change again on the row as it now is. So a create is
 * a claim and a write of the answer, and a callback one write, with no read when this process wrote
 * the row last. Each audit entry is keyed here with the gateway's key (audit.entry.ts `keyed`); the
 * engine numbers and links it in the step that writes it.
 */
export abstract class StoreWrites {
  protected abstract readonly steps: PayoutSteps;
  /** How the engine runs the beneficiary book's statements (beneficiary.write.ts). */
  protected abstract readonly book: BookStatements;
  protected abstract readonly now: () => number;
  protected abstract row(merchantId: string, referenceId: string): Promise<StoredRow | undefined>;
  protected abstract readonly entryKey: EntryKey;
  private readonly recent = new RecentRows();

  async insertIfAbsent(record: Disbursement, audit: readonly AuditDraft[] = []): Promise<Disbursement | undefined> {
    return (await this.claim(record, undefined, audit)).existing;
  }

  async insertReserving(
    record: Disbursement,
    caps: ReservationCaps,
    audit: readonly AuditDraft[] = [],
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }> {
    return this.claim(record, caps, audit);
  }

  /** Claims the record's key; with `caps` and a reservation on the record, its day's hold first. */
  private async claim(
    record: Disbursement,
    caps: ReservationCaps | undefined,
    audit: readonly AuditDraft[],
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }> {
    const held = caps && record.reservation;
    const hold = held ? { held, caps } : undefined;
    const entries = this.keyed(record.merchantId, audit);
    for (;;) {
      const columns = payoutColumns(record, this.now());
      const answer = await this.steps.claim({ record, columns, hold, logged: shownOnInsert(record), audit: entries });
      if (answer.claimed) {
        this.recent.set(record.merchantId, record.referenceId, { record, written: columns.record, revision: '1' });
        return {};
      }
      if (answer.existing) return { existing: answer.existing };
      if (hold && answer.refusedAt) {
        const refused = dailyLimitRefusal(hold.caps, answer.refusedAt, hold.held.minor);
        if (refused) return { refused };
        throw new Error('the store refused a hold the caps allow');
      }
      // Neither claimed nor found: another claim of the key held it and has gone since. Try again.
    }
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
    audit?: AuditRule,
  ): Promise<Disbursement | undefined> {
    // The row as this process last wrote it, if it did: tried first, without reading it.
    let known: StoredRow | undefined = this.recent.get(merchantId, referenceId);
    for (;;) {
      const remembered = known;
      known = undefined;
      const current = remembered ?? (await this.row(merchantId, referenceId));
      if (!current) return undefined;
      const next = change(current.record);
      // Nothing to change in what this process wrote: the row may have moved on since, so it is read.
      if (!next && remembered) continue;
      if (!next) return current.record;
      const { record, release } = releasing(next);
      const columns = payoutColumns(record, this.now());
      const at = { merchantId, referenceId, revision: current.revision, written: remembered?.written };
      const written = await this.steps.rewrite({
        at,
        record,
        columns,
        release,
        logged: isPublished(current.record, record),
        // The payout's relay commits with the write that made it final, or neither does.
        relay: relayJobOf(current.record, record),
        audit: this.keyed(merchantId, audit?.(current.record, record) ?? []),
      });
      if (written) {
        const revision = String(Number(current.revision) + 1);
        this.recent.set(merchantId, referenceId, { record, written: columns.record, revision });
        return record;
      }
    }
  }

  async remove(
    merchantId: string,
    referenceId: string,
    expected: (current: Disbursement) => boolean,
    audit?: (current: Disbursement) => readonly AuditDraft[],
  ): Promise<void> {
    await this.removeRow(merchantId, referenceId, expected, audit, true);
  }

  /** Removes the row while `expected` holds for it, with its entries; `release`: its unreleased reservation too. */
  private async removeRow(
    merchantId: string,
    referenceId: string,
    expected: (current: Disbursement) => boolean,
    audit: ((current: Disbursement) => readonly AuditDraft[]) | undefined,
    release: boolean,
  ): Promise<void> {
    for (;;) {
      const current = await this.row(merchantId, referenceId);
      if (!current || !expected(current.record)) return;
      const erased = await this.steps.erase({
        at: { merchantId, referenceId, revision: current.revision },
        release: release ? releasedByRemoval(current.record) : undefined,
        audit: this.keyed(merchantId, audit?.(current.record) ?? []),
      });
      if (erased) return this.recent.forget(merchantId, referenceId);
    }
  }

  async known(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    return this.recent.get(merchantId, referenceId)?.record ?? (await this.get(merchantId, referenceId));
  }

  abstract get(merchantId: string, referenceId: string): Promise<Disbursement | undefined>;

  /**
   * A row as just read, to start the next change of it from (recent.rows.ts): a change of a payout
   * is most often asked for right after it was read (an approval, a cancel). Nothing there: forgotten.
   */
  protected remember(merchantId: string, referenceId: string, row: StoredRow | undefined): void {
    if (row) this.recent.set(merchantId, referenceId, row);
    else this.recent.forget(merchantId, referenceId);
  }

  /** Removes final payouts retention lets go, each with its RECORD_REMOVED entry; its hold stays counted for its day. */
  protected async removeFinals(
    finals: readonly { merchantId: string; referenceId: string }[],
    now: number,
    retentionMs: number,
  ): Promise<number> {
    const audit = removedByRetention(new Date(now).toISOString(), retentionMs / 1000);
    for (const { merchantId, referenceId } of finals)
      await this.removeRow(merchantId, referenceId, (current) => isFinal(current.status), audit, false);
    return finals.length;
  }

  async insertBeneficiary(write: BeneficiaryWrite): Promise<{ duplicate?: Beneficiary }> {
    return insertBeneficiary(this.book, write);
  }

  async updateBeneficiary(
    merchantId: string,
    id: string,
    change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  ): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
    return updateBeneficiary(this.book, merchantId, id, change);
  }

  async appendAudit(merchantId: string, entries: readonly AuditDraft[]): Promise<void> {
    if (entries.length > 0) await this.steps.append(merchantId, this.keyed(merchantId, entries));
  }

  /** The drafts of one write, each given an id and keyed for the merchant with the key only the gateway holds. */
  protected keyed(merchantId: string, drafts: readonly AuditDraft[]): KeyedDraft[] {
    return drafts.map((draft) => keyed(merchantId, draft, this.entryKey));
  }
}
