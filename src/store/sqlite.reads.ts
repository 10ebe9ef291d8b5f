import type { Database } from 'better-sqlite3';
import { SqliteFile } from '../database/sqlite.open';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EntryKey } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement } from '../disbursements/disbursement.model';
import {
  AuditPage,
  AuditQuery,
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
import {
  auditCondition,
  AuditRow,
  checkpointOf,
  CheckpointRow,
  entryOf,
  historyCondition,
  historyEntryOf,
  historyPageSql,
  HistoryRow,
} from './payout.row';
import { sqliteStatements, SqliteStatements } from './sqlite.statements';
import { PayoutWrites } from './payout.writes';
import { auditPageSql, historyCountSql } from './shared.statements';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { beneficiaryPage, readBeneficiary } from './sqlite.beneficiaries';

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
export const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
};

export type Row = { record: string };

/**
 * What SqliteStore reads, each read synchronous and counted in `databaseCalls`: SQLite's refusals are
 * a StoreUnavailableError. A scan reads a page at a time, the event loop turning between pages.
 */
export abstract class SqliteReads extends PayoutWrites implements RecordsReader {
  protected readonly db: Database;

  protected readonly now: () => number;

  protected readonly retentionMs: number;

  protected readonly eventRetentionMs: number;

  protected readonly q: SqliteStatements;

  databaseCalls = 0;

  constructor(protected readonly opts: SqliteStoreOptions) {
    super();
    this.db = opts.file.db;
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

  async reserved(
    merchantId: string,
    day: string,
    currency: string,
    actorId: string,
  ): Promise<{ merchant: number; actor: number }> {
    return this.guarded(() => this.held(merchantId, day, currency, actorId));
  }

  async beneficiary(merchantId: string, id: string): Promise<Beneficiary | undefined> {
    return this.guarded(() => readBeneficiary(this.db, merchantId, id));
  }

  async beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return this.guarded(() => beneficiaryPage(this.db, merchantId, query));
  }

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

  protected read(merchantId: string, referenceId: string): Disbursement | undefined {
    const row = this.q.get.get(merchantId, referenceId) as Row | undefined;
    return row ? (JSON.parse(row.record) as Disbursement) : undefined;
  }

  protected held(merchantId: string, day: string, currency: string, actorId: string) {
    const get = (actor: string) =>
      (this.q.reserved.get(merchantId, day, currency, actor) as { minor: number } | undefined)?.minor ?? 0;
    return { merchant: get(''), actor: get(actorId) };
  }

  /**
   * One page of a scan (exports, statements, the audit trail, reconciliation): the event loop turns
   * first. better-sqlite3 answers synchronously, so a scan that never waited would hold every other
   * request until its last page; each page is its own short statement, so no read outlives it.
   */
  protected async page<T>(work: () => T): Promise<T> {
    await nextTurn();
    return this.guarded(work);
  }

  /** One read, counted, its SQLite refusals as StoreUnavailableError. */
  protected guarded<T>(work: () => T): T {
    this.databaseCalls += 1;
    try {
      return work();
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/** SQLite's refusals as the store's StoreUnavailableError; any other error as it is. */
export function unavailable(error: unknown): unknown {
  return UNAVAILABLE.test(codeOf(error))
    ? new StoreUnavailableError('the SQLite file cannot be used right now', { cause: error })
    : error;
}
