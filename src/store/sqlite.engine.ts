import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database } from 'better-sqlite3';
import { GroupCommit } from '../database/sqlite.group-commit';
import { SqliteFile } from '../database/sqlite.open';
import { SqliteRunner, sqliteRunner } from '../database/sqlite.prepared';
import { sql } from '../database/sql.dialect';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement } from '../disbursements/disbursement.model';
import { StatementLine, StoreUnavailableError } from '../disbursements/disbursement.ports';
import { PayoutStore, StoreOptions } from './payout.store';
import { finalBefore, spentCounters } from './retention.statements';
import { BookStatements } from './beneficiary.write';
import { sqliteBook } from './sqlite.beneficiaries';
import { MerchantHeads } from './sqlite.heads';
import { SqliteSteps } from './sqlite.steps';
import { sqliteStatement } from './sqlite.statement';
import { StoreEngine } from './store.engine';
import { Read, Rows, sqlFor } from './store.read';

export interface SqliteStoreOptions extends StoreOptions {
  /** The file: read directly, written through its committer. */
  file: SqliteFile;
  /** Told of each logged change once it is committed: the process's events publish it. */
  onChange?: (record: Disbursement) => void;
}

/** The store on the embedded file (payout.store.ts, with the engine below). */
export function sqliteStore(opts: SqliteStoreOptions): PayoutStore {
  return new PayoutStore(new SqliteEngine(opts.file, opts.onChange), opts);
}

/** SQLite's answer when the file cannot be written or read (full disk, I/O error, a broken file). */
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|CANTOPEN|CORRUPT|NOTADB|READONLY|BUSY|LOCKED|PROTOCOL)/;
export const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
};

/** SQLite's refusals as the store's StoreUnavailableError; any other error as it is. */
export function unavailable(error: unknown): unknown {
  return UNAVAILABLE.test(codeOf(error))
    ? new StoreUnavailableError('the SQLite file cannot be used right now', { cause: error })
    : error;
}

/** A write the disk refused: full, or an I/O error. */
const DISK_REFUSED = /^SQLITE_(FULL|IOERR)/;
/** Free space the file's file system needs, after a refused write, before the store says ready again. */
const FREE_TO_RESUME_BYTES = 1024 * 1024;

/** Changes past the event retention, a bounded batch at a time. */
const pruneChanges = (before: number) =>
  sql`DELETE FROM payout_changes WHERE rowid IN (SELECT rowid FROM payout_changes WHERE at < ${before} LIMIT 1000)`;

/**
 * The embedded file as a store engine: one process on one SQLite file (better-sqlite3). A read runs
 * synchronously, counted, its refusals a StoreUnavailableError; a scan (exports, the audit trail,
 * reconciliation) reads a page at a time, the event loop turning first. A write runs synchronously
 * too, in its own savepoint of the file's next group commit (nothing else of this process runs in
 * between, and no other process opens the file), and its promise settles once its group is committed.
 */
export class SqliteEngine implements StoreEngine {
  readonly dialect = 'sqlite';
  calls = 0;
  private readonly db: Database;
  /** The file's statements, each prepared once (sqlite.prepared.ts). */
  private readonly q: SqliteRunner;
  private readonly writes: GroupCommit;
  private readonly heads: MerchantHeads;
  readonly steps: SqliteSteps;
  readonly book: BookStatements;
  /** The last write was refused by the disk (full, I/O error) and none has succeeded since: not ready. */
  private writesRefused = false;

  constructor(
    file: SqliteFile,
    private readonly onChange?: (record: Disbursement) => void,
  ) {
    this.db = file.db;
    this.q = sqliteRunner(this.db);
    this.writes = file.writes;
    this.heads = new MerchantHeads(this.db, this.writes);
    this.steps = new SqliteSteps(this.q, this.heads, {
      write: (work) => this.write(work),
      read: (reading) => this.sync(reading),
    });
    this.book = sqliteBook(this.q, {
      read: (work) => this.guarded(work),
      write: (work) => this.write(() => ({ result: work() })),
      append: (merchantId, entries) => void this.steps.appended(merchantId, entries),
    });
  }

  async run<T>(reading: Read<T>): Promise<T> {
    const work = () => this.sync(reading);
    return reading.scan ? this.page(work) : this.guarded(work);
  }

  statement(merchantId: string, from: number, to: number): Promise<StatementLine[]> {
    return sqliteStatement(
      merchantId,
      from,
      to,
      (work) => this.page(work),
      (reading) => this.sync(reading),
    );
  }

  async addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    return this.write(() => {
      for (const c of checkpoints)
        this.q.run(sql`INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature, key_id)
          VALUES (${c.merchantId}, ${c.sequence}, ${c.hash}, ${c.at}, ${c.signature}, ${c.keyId})
          ON CONFLICT (merchant_id, sequence) DO NOTHING`);
      return { result: undefined };
    });
  }

  async prune(now: number, eventBefore: number, before: number | undefined) {
    const removed = await this.write(() => ({
      result: this.q.run(pruneChanges(eventBefore)).changes + this.q.run(spentCounters(now)).changes,
    }));
    if (before === undefined) return { removed, finals: [] };
    const rows = this.guarded(() => this.q.all<{ merchant_id: string; reference_id: string }>(finalBefore(before)));
    return { removed, finals: rows.map((row) => ({ merchantId: row.merchant_id, referenceId: row.reference_id })) };
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
        this.q.get(sql`SELECT 1`);
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

  /** The read's statements, run now (inside a write's transaction too), uncounted. */
  private sync<T>(reading: Read<T>): T {
    return reading.answer(reading.statements.map((s): Rows => this.q.all<object>(sqlFor(s.sql, 'sqlite'))));
  }

  /**
   * One page of a scan: the event loop turns first. better-sqlite3 answers synchronously, so a scan
   * that never waited would hold every other request until its last page; each page is its own short
   * statement, so no read outlives it.
   */
  private async page<T>(work: () => T): Promise<T> {
    await nextTurn();
    return this.guarded(work);
  }

  /** One read, counted, its SQLite refusals as StoreUnavailableError. */
  private guarded<T>(work: () => T): T {
    this.calls += 1;
    try {
      return work();
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** A write in the file's next group commit; the change it logged is told once that is committed. */
  private async write<T>(work: () => { result: T; logged?: Disbursement }): Promise<T> {
    let done: { result: T; logged?: Disbursement };
    this.calls += 1;
    try {
      done = await this.writes.write(() => {
        this.heads.begin();
        try {
          return work();
        } catch (error) {
          // Rolled back alone: the heads it moved in memory go back to where the group's other writes left them.
          this.heads.undo();
          throw error;
        }
      });
      this.writesRefused = false;
    } catch (error) {
      // Rolled back with its group, or alone: the heads in memory may be ahead of the file.
      this.heads.forget();
      if (DISK_REFUSED.test(codeOf(error))) this.writesRefused = true;
      throw unavailable(error);
    }
    if (done.logged) this.onChange?.(done.logged);
    return done.result;
  }
}
