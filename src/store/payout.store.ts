import { AuditDraft, EntryKey, KeyedDraft, keyed } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { removedByRetention } from '../disbursements/audit.rules';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { dailyLimitRefusal } from '../disbursements/daily-limit.refusal';
import { Disbursement, isFinal } from '../disbursements/disbursement.model';
import {
  AuditCheckpointStore,
  AuditQuery,
  AuditRule,
  BeneficiaryStore,
  BeneficiaryWrite,
  DisbursementStore,
  HistoryPosition,
  HistoryQuery,
  RecordsReader,
} from '../disbursements/disbursement.ports';
import { isPublished, shownOnInsert } from '../disbursements/disbursement.record';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import { relayJobOf } from '../disbursements/relay.job';
import { insertBeneficiary, updateBeneficiary } from './beneficiary.write';
import { payoutColumns } from './payout.row';
import { StoredRow } from './payout.steps';
import { RecentRows } from './recent.rows';
import * as reads from './shared.statements';
import { PayoutKey, StoreEngine } from './store.engine';

export interface StoreOptions {
  /** The key every audit entry's keyed value is made with, and its id (audit.keys.ts). */
  entryKey: EntryKey;
  /** RECORD_RETENTION_SECONDS in ms: final records not written for this long go (0: kept forever). */
  retentionMs?: number;
  /** EVENT_RETENTION_SECONDS in ms: how long the change log keeps a change. Default one day. */
  eventRetentionMs?: number;
  now?: () => number;
}

/**
 * The system of record, on any engine: one class given one engine (store.engine.ts), which only runs
 * what this class decides. Every payout write is written here once: what each step writes and under
 * what condition (payout.steps.ts), and what is done when its condition no longer holds. A change is
 * read-modify-write on the row's revision: read the row (or take it as this process last wrote it,
 * recent.rows.ts), run the change, write it only at that revision; a write that lost the race runs
 * the change again on the row as it now is. So a create is a claim and a write of the answer, and a
 * callback one write, with no read when this process wrote the row last. Each audit entry is keyed
 * here with the gateway's key (audit.entry.ts `keyed`); the engine numbers and links it in the step
 * that writes it. Every read is one description in shared.statements.ts.
 */
export class PayoutStore implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore {
  private readonly recent = new RecentRows();
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly eventRetentionMs: number;

  constructor(
    private readonly engine: StoreEngine,
    private readonly options: StoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.retentionMs = options.retentionMs ?? 0;
    this.eventRetentionMs = options.eventRetentionMs ?? 24 * 3600_000;
  }

  get databaseCalls(): number {
    return this.engine.calls;
  }

  healthy(): Promise<boolean> {
    return this.engine.healthy();
  }

  close(): Promise<void> {
    return this.engine.close();
  }

  async insertIfAbsent(record: Disbursement, audit: readonly AuditDraft[] = []): Promise<Disbursement | undefined> {
    return (await this.claim(record, undefined, audit)).existing;
  }

  insertReserving(
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
      const answer = await this.engine.steps.claim({
        record,
        columns,
        hold,
        logged: shownOnInsert(record),
        audit: entries,
      });
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
      const written = await this.engine.steps.rewrite({
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
    await this.removeRow({ merchantId, referenceId }, expected, audit, true);
  }

  /** Removes the row while `expected` holds for it, with its entries; `release`: its unreleased reservation too. */
  private async removeRow(
    { merchantId, referenceId }: PayoutKey,
    expected: (current: Disbursement) => boolean,
    audit: ((current: Disbursement) => readonly AuditDraft[]) | undefined,
    release: boolean,
  ): Promise<void> {
    for (;;) {
      const current = await this.row(merchantId, referenceId);
      if (!current || !expected(current.record)) return;
      const erased = await this.engine.steps.erase({
        at: { merchantId, referenceId, revision: current.revision },
        release: release ? releasedByRemoval(current.record) : undefined,
        audit: this.keyed(merchantId, audit?.(current.record) ?? []),
      });
      if (erased) return this.recent.forget(merchantId, referenceId);
    }
  }

  async appendAudit(merchantId: string, entries: readonly AuditDraft[]): Promise<void> {
    if (entries.length > 0) await this.engine.steps.append(merchantId, this.keyed(merchantId, entries));
  }

  /**
   * Removes what retention lets go, a bounded batch at a time: changes older than
   * EVENT_RETENTION_SECONDS, and (when RECORD_RETENTION_SECONDS is set) final records not written for
   * that long, each with its RECORD_REMOVED entry (its hold stays counted for its day). Returns how
   * many rows went.
   */
  async prune(now = this.now()): Promise<number> {
    const finalBefore = this.retentionMs > 0 ? now - this.retentionMs : undefined;
    const { removed, finals } = await this.engine.prune(now, now - this.eventRetentionMs, finalBefore);
    const audit = removedByRetention(new Date(now).toISOString(), this.retentionMs / 1000);
    for (const key of finals) await this.removeRow(key, (current) => isFinal(current.status), audit, false);
    return removed + finals.length;
  }

  addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    return this.engine.addCheckpoints(checkpoints);
  }

  insertBeneficiary(write: BeneficiaryWrite): Promise<{ duplicate?: Beneficiary }> {
    return insertBeneficiary(this.engine.book, write, (merchantId, drafts) => this.keyed(merchantId, drafts));
  }

  updateBeneficiary(
    merchantId: string,
    id: string,
    change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  ): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
    return updateBeneficiary(this.engine.book, merchantId, id, change, (m, drafts) => this.keyed(m, drafts));
  }

  /** The drafts of one write, each given an id and keyed for the merchant with the key only the gateway holds. */
  private keyed(merchantId: string, drafts: readonly AuditDraft[]): KeyedDraft[] {
    return drafts.map((draft) => keyed(merchantId, draft, this.options.entryKey));
  }

  /** The row a change starts from: its record, its text and its revision. */
  private row(merchantId: string, referenceId: string): Promise<StoredRow | undefined> {
    return this.engine.run(reads.current(merchantId, referenceId));
  }

  /**
   * The record as stored; the row is remembered (recent.rows.ts), so a change of it that follows (an
   * approval, a cancel: most often asked for right after a read) need not read it again.
   */
  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    const row = await this.row(merchantId, referenceId);
    if (row) this.recent.set(merchantId, referenceId, row);
    else this.recent.forget(merchantId, referenceId);
    return row?.record;
  }

  async known(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    return this.recent.get(merchantId, referenceId)?.record ?? (await this.get(merchantId, referenceId));
  }

  getMany(merchantId: string, referenceIds: readonly string[]) {
    return this.engine.run(reads.many(merchantId, referenceIds));
  }

  reserved(merchantId: string, day: string, currency: string, actorId: string) {
    return this.engine.run(reads.reserved(merchantId, day, currency, actorId));
  }

  beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return this.engine.run(reads.beneficiaryPage(merchantId, query));
  }

  beneficiary(merchantId: string, id: string) {
    return this.engine.run(reads.beneficiary(merchantId, id));
  }

  unsignedHeads() {
    return this.engine.run(reads.unsignedHeads());
  }

  auditHead(merchantId: string) {
    return this.engine.run(reads.auditHead(merchantId));
  }

  latestCheckpoints(merchantId: string, limit: number) {
    return this.engine.run(reads.latestCheckpoints(merchantId, limit));
  }

  auditPage(merchantId: string, query: AuditQuery) {
    return this.engine.run(reads.auditPage(merchantId, query));
  }

  statement(merchantId: string, from: number, to: number) {
    return this.engine.statement(merchantId, from, to);
  }

  createdBetween(
    merchantId: string,
    window: { from: number; to: number },
    after: HistoryPosition | undefined,
    limit: number,
  ) {
    return this.engine.run(reads.createdBetween(merchantId, window, after, limit));
  }

  writtenSince(merchantId: string, since: number, after: HistoryPosition | undefined, limit: number) {
    return this.engine.run(reads.writtenSince(merchantId, since, after, limit));
  }

  due(now: Date, limit: number, merchantIds?: readonly string[]) {
    return this.engine.run(reads.due(now.getTime(), limit, merchantIds));
  }

  unsent(after: PayoutKey | undefined, limit: number) {
    return this.engine.run(reads.unsent(after, limit));
  }

  waitingWork(now: Date, merchantIds: readonly string[]) {
    return this.engine.run(reads.waitingWork(now.getTime(), merchantIds));
  }

  history(merchantId: string, query: HistoryQuery) {
    return this.engine.run(reads.history(merchantId, query));
  }

  changesAfter(merchantId: string, position: string, limit: number) {
    return this.engine.run(reads.changesAfter(merchantId, position, limit));
  }

  /** A change past the retention is gone for its reader, whether or not the prune has removed it yet. */
  hasChange(merchantId: string, position: string) {
    return this.engine.run(reads.hasChange(merchantId, position, this.now() - this.eventRetentionMs));
  }

  latestChange(merchantId: string) {
    return this.engine.run(reads.latestChange(merchantId));
  }
}
