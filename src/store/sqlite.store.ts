import type { Database } from 'better-sqlite3';
import { GroupCommit } from '../database/sqlite.group-commit';
import { SqliteFile } from '../database/sqlite.open';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AuditDraft, EntryKey } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement, Reservation } from '../disbursements/disbursement.model';
import {
  AuditPage,
  AuditCheckpointStore,
  AuditQuery,
  AuditRule,
  DisbursementStore,
  HistoryEntry,
  HistoryPage,
  HistoryPosition,
  HistoryQuery,
  LoggedChange,
  MerchantChainHead,
  RecordsReader,
  ScheduledWaiting,
  START_POSITION,
  StatementLine,
  StoreUnavailableError,
} from '../disbursements/disbursement.ports';
import { isPublished, shownOnInsert } from '../disbursements/disbursement.record';
import { relayJobOf } from '../disbursements/relay.job';
import { dailyLimitRefusal } from '../disbursements/daily-limit.refusal';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import {
  auditCondition,
  AuditRow,
  checkpointOf,
  columnValues,
  CheckpointRow,
  createdAtOf,
  entryOf,
  historyCondition,
  historyEntryOf,
  historyPageSql,
  HistoryRow,
  payoutColumns,
  PayoutColumns,
} from './payout.row';
import { sqliteStatements, SqliteStatements } from './sqlite.statements';
import { appendAuditChain } from './sqlite.audit-chain';
import { removedByRetention } from '../disbursements/audit.rules';
import { auditPageSql, historyCountSql } from './shared.statements';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { BeneficiaryStore, BeneficiaryWrite } from '../disbursements/disbursement.ports';
import { beneficiaryPage, insertBeneficiaryRow, readBeneficiary, updateBeneficiaryRow } from './sqlite.beneficiaries';

export interface SqliteStoreOptions {
  /** The file: read directly, written through its committer. */
  file: SqliteFile;
  /** The key every audit entry's keyed value is made with, and its id (audit.keys.ts). */
  entryKey: EntryKey;
  /** Told of each logged change once it is committed: the process's events publish it. */
  onChange?: (record: Disbursement) => void;
  /** RECORD_RETENTION_SECONDS in ms: final records not written for this long go (0: kept forever). */
  retentionMs?: number;
  /** EVENT_RETENTION_SECONDS in ms: how long the change log keeps a change. Default one day. */
  eventRetentionMs?: number;
  now?: () => number;
}

/** Rows a statement sums per slice: a few milliseconds of the event loop each. */
const STATEMENT_SLICE = 5000;

/** SQLite's answer when the file cannot be written or read (full disk, I/O error, a broken file). */
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|CANTOPEN|CORRUPT|NOTADB|READONLY|BUSY|LOCKED|PROTOCOL)/;
/** A write the disk refused: full, or an I/O error. */
const DISK_REFUSED = /^SQLITE_(FULL|IOERR)/;
/** Free space the file's file system needs, after a refused write, before the store says ready again. */
const FREE_TO_RESUME_BYTES = 1024 * 1024;

const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
};

type Row = { record: string };

/**
 * The embedded store: one process on one SQLite file (better-sqlite3). A read runs synchronously; a
 * write runs synchronously too, in its own savepoint of the file's next group commit, so a
 * read-modify-write is atomic without locks: nothing else of this process runs in between, and no
 * other process opens the file. A write's promise settles once its group is committed.
 */
export class SqliteStore implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore {
  private readonly db: Database;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly eventRetentionMs: number;
  private readonly q: SqliteStatements;
  private readonly writes: GroupCommit;
  databaseCalls = 0;
  /** The last write was refused by the disk (full, I/O error) and none has succeeded since: not ready. */
  private writesRefused = false;

  constructor(private readonly opts: SqliteStoreOptions) {
    this.db = opts.file.db;
    this.writes = opts.file.writes;
    this.now = opts.now ?? Date.now;
    this.retentionMs = opts.retentionMs ?? 0;
    this.eventRetentionMs = opts.eventRetentionMs ?? 24 * 3600_000;
    this.q = sqliteStatements(this.db);
  }

  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    return this.guarded(() => this.read(merchantId, referenceId));
  }

  async getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    return this.guarded(() => {
      const rows = this.q.getMany.all(merchantId, JSON.stringify(referenceIds)) as {
        reference_id: string;
        record: string;
      }[];
      const found = new Map(rows.map((r) => [r.reference_id, r.record]));
      return referenceIds.map((id) => {
        const json = found.get(id);
        return json === undefined ? undefined : (JSON.parse(json) as Disbursement);
      });
    });
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

  async reserved(
    merchantId: string,
    day: string,
    currency: string,
    actorId: string,
  ): Promise<{ merchant: number; actor: number }> {
    return this.guarded(() => this.held(merchantId, day, currency, actorId));
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

  async beneficiary(merchantId: string, id: string): Promise<Beneficiary | undefined> {
    return this.guarded(() => readBeneficiary(this.db, merchantId, id));
  }

  async insertBeneficiary(write: BeneficiaryWrite): Promise<{ duplicate?: Beneficiary }> {
    return this.write(() => ({ result: { duplicate: insertBeneficiaryRow(this.db, write, this.appendTo) } }));
  }

  async updateBeneficiary(
    merchantId: string,
    id: string,
    change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  ): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
    return this.write(() => ({ result: updateBeneficiaryRow(this.db, merchantId, id, change, this.appendTo) }));
  }

  async beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return this.guarded(() => beneficiaryPage(this.db, merchantId, query));
  }

  /** Appends to the merchant's chain inside the write under way. */
  private readonly appendTo = (merchantId: string, drafts: readonly AuditDraft[]) =>
    appendAuditChain(this.q, this.opts.entryKey, merchantId, drafts);

  async auditPage(merchantId: string, query: AuditQuery): Promise<AuditPage> {
    return this.page(() => {
      const where = auditCondition(merchantId, query, () => '?');
      const rows = this.db.prepare(auditPageSql(where.sql, '?')).all(...where.values, query.limit + 1) as AuditRow[];
      return { entries: rows.slice(0, query.limit).map(entryOf), hasMore: rows.length > query.limit };
    });
  }

  async unsignedHeads(): Promise<MerchantChainHead[]> {
    return this.guarded(() =>
      (this.q.unsignedHeads.all() as { merchant_id: string; audit_sequence: number; audit_hash: string }[]).map(
        (row) => ({ merchantId: row.merchant_id, sequence: row.audit_sequence, hash: row.audit_hash }),
      ),
    );
  }

  async addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    return this.write(() => {
      for (const c of checkpoints)
        this.q.addCheckpoint.run(c.merchantId, c.sequence, c.hash, c.at, c.signature, c.keyId);
      return { result: undefined };
    });
  }

  async auditHead(merchantId: string): Promise<{ sequence: number; hash: string } | undefined> {
    return this.guarded(() => {
      const head = this.q.auditHead.get(merchantId) as { audit_sequence: number; audit_hash: string } | undefined;
      return head && head.audit_sequence > 0 ? { sequence: head.audit_sequence, hash: head.audit_hash } : undefined;
    });
  }

  async latestCheckpoints(merchantId: string, limit: number): Promise<AuditCheckpoint[]> {
    return this.guarded(() => (this.q.latestCheckpoints.all(merchantId, limit) as CheckpointRow[]).map(checkpointOf));
  }

  /**
   * Summed a slice of STATEMENT_SLICE rows at a time (keyset slices, each its own statement, the
   * event loop free between them): one statement over a large window would hold the process for
   * as long as it reads. A payout written while it runs is counted once, with its status then.
   */
  async statement(merchantId: string, from: number, to: number): Promise<StatementLine[]> {
    const lines = new Map<string, StatementLine>();
    let after: [number, string] = [from - 1, ''];
    for (let done = false; !done;) {
      done = await this.page(() => {
        // Each slice's range starts where the last ended, as createdBetween's pages do.
        const start = Math.max(from, after[0]);
        const end = this.q.statementSliceEnd.get(merchantId, start, to, ...after, STATEMENT_SLICE - 1) as
          { created_at: number; reference_id: string } | undefined;
        // The last slice reaches the window's end: every row left is before (to, ''), at to - 1 ms at the latest.
        const until: [number, string] = end ? [end.created_at, end.reference_id] : [to, ''];
        const last = end ? end.created_at : to - 1;
        const rows = this.q.statementSlice.all(merchantId, start, last, ...after, ...until) as {
          currency: string;
          status: StatementLine['status'];
          count: number;
          minor: number;
        }[];
        for (const r of rows) {
          const key = `${r.currency}\n${r.status}`;
          const line = lines.get(key) ?? { currency: r.currency, status: r.status, count: 0, amountMinor: 0 };
          lines.set(key, { ...line, count: line.count + r.count, amountMinor: line.amountMinor + r.minor });
        }
        after = until;
        return end === undefined;
      });
    }
    const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...lines.values()].sort((a, b) => byText(a.currency, b.currency) || byText(a.status, b.status));
  }

  async createdBetween(
    merchantId: string,
    window: { from: number; to: number },
    after: HistoryPosition | undefined,
    limit: number,
  ): Promise<HistoryEntry[]> {
    return this.page(() => {
      // The range starts at the page's first possible row: SQLite seeks the index on the
      // created_at range, not on the row value, so from the window's start each page would first
      // step over every row before it (pages ever slower, an export's time growing with its square).
      const rows = this.q.createdBetween.all(
        merchantId,
        Math.max(window.from, after?.at ?? window.from),
        window.to,
        after?.at ?? window.from - 1,
        after?.referenceId ?? '',
        limit,
      ) as HistoryRow[];
      return rows.map(historyEntryOf);
    });
  }

  async writtenSince(
    merchantId: string,
    since: number,
    after: HistoryPosition | undefined,
    limit: number,
  ): Promise<HistoryEntry[]> {
    return this.page(() => {
      const rows = this.q.writtenSince.all(
        merchantId,
        since,
        after?.at ?? -1,
        after?.referenceId ?? '',
        limit,
      ) as HistoryRow[];
      return rows.map(historyEntryOf);
    });
  }

  async due(now: Date, limit: number): Promise<Disbursement[]> {
    return this.guarded(() => {
      return (this.q.due.all({ now: now.getTime(), limit }) as Row[]).map((r) => JSON.parse(r.record) as Disbursement);
    });
  }

  async scheduledWaiting(): Promise<ScheduledWaiting> {
    return this.guarded(() => {
      const row = this.q.scheduledWaiting.get() as { count: number; earliest: number | null };
      return { count: row.count, earliestDueAt: row.earliest ?? undefined };
    });
  }

  async history(merchantId: string, query: HistoryQuery): Promise<HistoryPage> {
    return this.guarded(() => {
      const page = historyPageSql(
        historyCondition(merchantId, query.filter, query.after, () => '?'),
        query,
        () => '?',
      );
      const rows = this.db.prepare(page.sql).all(...page.values) as HistoryRow[];
      const all = historyCondition(merchantId, query.filter, undefined, () => '?');
      const { count } = this.db.prepare(historyCountSql(all.sql)).get(...all.values) as {
        count: number;
      };
      const entries = rows.slice(0, query.limit).map(historyEntryOf);
      const last = entries.at(-1);
      return {
        entries,
        hasMore: rows.length > query.limit,
        endPosition: last ? { at: last.at, referenceId: last.referenceId } : query.after,
        totalCount: count,
      };
    });
  }

  async changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]> {
    return this.guarded(() => {
      const rows = this.q.changesAfter.all(merchantId, Number(position), limit) as {
        position: number;
        record: string;
      }[];
      return rows.map((r) => ({ position: String(r.position), record: JSON.parse(r.record) as Disbursement }));
    });
  }

  async hasChange(merchantId: string, position: string): Promise<boolean> {
    // A change past the retention is gone for its reader, whether or not the prune has removed it yet.
    const kept = this.now() - this.eventRetentionMs;
    return this.guarded(() => this.q.hasChange.get(merchantId, Number(position), kept) !== undefined);
  }

  async latestChange(merchantId: string): Promise<string> {
    return this.guarded(() => {
      const head = this.q.head.get(merchantId) as { change_position: number } | undefined;
      return head ? String(head.change_position) : START_POSITION;
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

  private read(merchantId: string, referenceId: string): Disbursement | undefined {
    const row = this.q.get.get(merchantId, referenceId) as Row | undefined;
    return row ? (JSON.parse(row.record) as Disbursement) : undefined;
  }

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

  private held(merchantId: string, day: string, currency: string, actorId: string) {
    const get = (actor: string) =>
      (this.q.reserved.get(merchantId, day, currency, actor) as { minor: number } | undefined)?.minor ?? 0;
    return { merchant: get(''), actor: get(actorId) };
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

  /**
   * One page of a scan (exports, statements, the audit trail, reconciliation): the event loop turns
   * first. better-sqlite3 answers synchronously, so a scan that never waited would hold every other
   * request until its last page; each page is its own short statement, so no read outlives it.
   */
  private async page<T>(work: () => T): Promise<T> {
    await nextTurn();
    return this.guarded(work);
  }

  /** One read, counted, its SQLite refusals as StoreUnavailableError. */
  private guarded<T>(work: () => T): T {
    this.databaseCalls += 1;
    try {
      return work();
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/** SQLite's refusals as the store's StoreUnavailableError; any other error as it is. */
function unavailable(error: unknown): unknown {
  return UNAVAILABLE.test(codeOf(error))
    ? new StoreUnavailableError('the SQLite file cannot be used right now', { cause: error })
    : error;
}
