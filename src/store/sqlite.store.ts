import { GroupCommit } from '../database/sqlite.group-commit';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AuditDraft } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement, Reservation } from '../disbursements/disbursement.model';
import { isPublished, shownOnInsert } from '../disbursements/disbursement.record';
import { relayJobOf } from '../disbursements/relay.job';
import { dailyLimitRefusal } from '../disbursements/daily-limit.refusal';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import { columnValues, createdAtOf, payoutColumns, PayoutColumns } from './payout.row';
import { appendAuditChain } from './sqlite.audit-chain';
import { removedByRetention } from '../disbursements/audit.rules';
import { Beneficiary } from '../disbursements/beneficiary.model';
import {
  AuditCheckpointStore,
  AuditRule,
  BeneficiaryStore,
  BeneficiaryWrite,
  DisbursementStore,
  RecordsReader,
} from '../disbursements/disbursement.ports';
import { sqliteBook } from './sqlite.beneficiaries';
import { insertBeneficiary, updateBeneficiary } from './beneficiary.write';
import { codeOf, SqliteReads, SqliteStoreOptions, unavailable } from './sqlite.reads';

/** A write the disk refused: full, or an I/O error. */
const DISK_REFUSED = /^SQLITE_(FULL|IOERR)/;
/** Free space the file's file system needs, after a refused write, before the store says ready again. */
const FREE_TO_RESUME_BYTES = 1024 * 1024;

/**
 * The embedded store: one process on one SQLite file (better-sqlite3). A read runs synchronously; a
 * write runs synchronously too, in its own savepoint of the file's next group commit, so a
 * read-modify-write is atomic without locks: nothing else of this process runs in between, and no
 * other process opens the file. A write's promise settles once its group is committed.
 */
export class SqliteStore
  extends SqliteReads
  implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore
{
  private readonly writes: GroupCommit;

  /** The last write was refused by the disk (full, I/O error) and none has succeeded since: not ready. */
  private writesRefused = false;

  constructor(opts: SqliteStoreOptions) {
    super(opts);
    this.writes = opts.file.writes;
  }

  async insertIfAbsent(record: Disbursement, audit: readonly AuditDraft[] = []): Promise<Disbursement | undefined> {
    return this.write(() => {
      const existing = this.read(record.merchantId, record.referenceId);
      if (existing) return { result: existing };
      return { result: undefined, logged: this.insertRow(record, audit) };
    });
  }

  async insertReserving(
    record: Disbursement,
    caps: ReservationCaps,
    audit: readonly AuditDraft[] = [],
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }> {
    return this.write<{ existing?: Disbursement; refused?: LimitRefusal }>(() => {
      const existing = this.read(record.merchantId, record.referenceId);
      if (existing) return { result: { existing } };
      const held = record.reservation;
      if (held) {
        const counters = this.held(record.merchantId, held.day, held.currency, held.actorId);
        const refused = dailyLimitRefusal(caps, counters, held.minor);
        if (refused) return { result: { refused } };
        this.count(record.merchantId, held, 1);
      }
      return { result: {}, logged: this.insertRow(record, audit) };
    });
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
    audit?: AuditRule,
  ): Promise<Disbursement | undefined> {
    return this.write(() => {
      const current = this.read(merchantId, referenceId);
      if (!current) return { result: undefined };
      const next = change(current);
      if (!next) return { result: current };
      const { record, release } = releasing(next);
      const columns = payoutColumns(record, this.now());
      this.q.update.run(...columnValues(columns), merchantId, referenceId);
      if (release) this.count(merchantId, release, -1);
      // The payout's relay commits with the write that made it final, or neither does.
      const job = relayJobOf(current, record);
      if (job) this.q.enqueueRelay.run(columns.written_at, JSON.stringify(job), merchantId, referenceId);
      appendAuditChain(this.q, this.opts.entryKey, merchantId, audit?.(current, record) ?? []);
      return { result: record, logged: isPublished(current, record) ? this.log(record, columns) : undefined };
    });
  }

  async remove(
    merchantId: string,
    referenceId: string,
    expected: (current: Disbursement) => boolean,
    audit?: (current: Disbursement) => readonly AuditDraft[],
  ): Promise<void> {
    return this.write(() => {
      const current = this.read(merchantId, referenceId);
      if (!current || !expected(current)) return { result: undefined };
      this.q.remove.run(merchantId, referenceId);
      appendAuditChain(this.q, this.opts.entryKey, merchantId, audit?.(current) ?? []);
      const release = releasedByRemoval(current);
      if (release) this.count(merchantId, release, -1);
      return { result: undefined };
    });
  }

  async appendAudit(merchantId: string, entries: readonly AuditDraft[]): Promise<void> {
    return this.write(() => {
      appendAuditChain(this.q, this.opts.entryKey, merchantId, entries);
      return { result: undefined };
    });
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

  /** The beneficiary book's statements on this file (sqlite.beneficiaries.ts). */
  private readonly book = sqliteBook({
    db: this.db,
    read: (work) => this.guarded(work),
    write: (work) => this.write(() => ({ result: work() })),
    append: (merchantId, drafts) => appendAuditChain(this.q, this.opts.entryKey, merchantId, drafts),
  });

  async addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    return this.write(() => {
      for (const c of checkpoints)
        this.q.addCheckpoint.run(c.merchantId, c.sequence, c.hash, c.at, c.signature, c.keyId);
      return { result: undefined };
    });
  }

  /**
   * Removes what retention lets go, a bounded batch at a time: final records not written for
   * RECORD_RETENTION_SECONDS (when set), and changes older than EVENT_RETENTION_SECONDS.
   * Returns how many rows went.
   */
  async prune(now = this.now()): Promise<number> {
    return this.write(() => {
      let removed = this.q.pruneChanges.run(now - this.eventRetentionMs).changes;
      if (this.retentionMs > 0) {
        const audit = removedByRetention(new Date(now).toISOString(), this.retentionMs / 1000);
        const finals = this.q.finalBefore.all(now - this.retentionMs) as {
          merchant_id: string;
          reference_id: string;
        }[];
        for (const { merchant_id: merchantId, reference_id: referenceId } of finals) {
          const current = this.read(merchantId, referenceId);
          if (!current) continue;
          this.q.remove.run(merchantId, referenceId);
          appendAuditChain(this.q, this.opts.entryKey, merchantId, audit(current));
          removed += 1;
        }
      }
      return { result: removed };
    });
  }

  /**
   * Ready while the file answers and its writes go through. After the disk refused a write, ready
   * again once its file system has FREE_TO_RESUME_BYTES free (a one-page write could pass where a
   * payout's would not) and a write succeeds: each check is then itself a write (the header's
   * user_version, which the schema does not use), so space coming back is seen with no traffic.
   */
  async healthy(): Promise<boolean> {
    try {
      if (!this.writesRefused) {
        this.q.ping.get();
        return true;
      }
      if (!this.db.memory) {
        const { bavail, bsize } = statfsSync(dirname(this.db.name));
        if (bavail * bsize < FREE_TO_RESUME_BYTES) return false;
      }
      await this.write(() => {
        const probes = this.db.pragma('user_version', { simple: true }) as number;
        this.db.pragma(`user_version = ${(probes + 1) % 0x7fffffff}`);
        return { result: undefined };
      });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {}

  /** Inserts a new record and its audit entries; one a client sees at once (held for approval) is also logged. */
  private insertRow(record: Disbursement, audit: readonly AuditDraft[]): Disbursement | undefined {
    const columns = payoutColumns(record, this.now());
    this.q.insert.run(record.merchantId, record.referenceId, createdAtOf(record), ...columnValues(columns));
    appendAuditChain(this.q, this.opts.entryKey, record.merchantId, audit);
    return shownOnInsert(record) ? this.log(record, columns) : undefined;
  }

  /**
   * Appends to the merchant's change log at the next position, with the JSON and time of the row just
   * written (as PostgreSQL's statements do); returns the record to tell of after commit.
   */
  private log(record: Disbursement, columns: PayoutColumns): Disbursement {
    const { change_position } = this.q.nextPosition.get(record.merchantId) as { change_position: number };
    this.q.appendChange.run(record.merchantId, change_position, columns.written_at, columns.record);
    return record;
  }

  /** Adds (1) or gives back (-1) a reservation; a counter back at zero goes, so past days leave nothing. */
  private count(merchantId: string, held: Reservation, sign: 1 | -1): void {
    for (const actor of ['', held.actorId]) {
      this.q.reserve.run(merchantId, held.day, held.currency, actor, sign * held.minor);
    }
    this.q.dropEmptyReservations.run(merchantId, held.day, held.currency);
  }

  /** A write in the file's next group commit; the change it logged is told once that is committed. */
  private async write<T>(work: () => { result: T; logged?: Disbursement }): Promise<T> {
    let done: { result: T; logged?: Disbursement };
    this.databaseCalls += 1;
    try {
      done = await this.writes.write(work);
      this.writesRefused = false;
    } catch (error) {
      if (DISK_REFUSED.test(codeOf(error))) this.writesRefused = true;
      throw unavailable(error);
    }
    if (done.logged) this.opts.onChange?.(done.logged);
    return done.result;
  }
}
