import type { Database } from 'better-sqlite3';
import { SqliteFile } from '../database/sqlite.open';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from '../database/sql.dialect';
import { EntryKey } from '../disbursements/audit.entry';
import { Disbursement } from '../disbursements/disbursement.model';
import { StatementLine, StoreUnavailableError } from '../disbursements/disbursement.ports';
import { StatementRow } from './shared.statements';
import { read, Read, Rows, sqlFor } from './store.read';
import { ReadOptions, StoreReads } from './store.reads';
import { SqliteRunner, sqliteRunner } from '../database/sqlite.prepared';

export interface SqliteStoreOptions extends ReadOptions {
  /** The file: read directly, written through its committer. */
  file: SqliteFile;
  /** The key every audit entry's keyed value is made with, and its id (audit.keys.ts). */
  entryKey: EntryKey;
  /** Told of each logged change once it is committed: the process's events publish it. */
  onChange?: (record: Disbursement) => void;
}

/** Rows a statement sums per slice: a few milliseconds of the event loop each. */
const STATEMENT_SLICE = 5000;

/** SQLite's answer when the file cannot be written or read (full disk, I/O error, a broken file). */
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|CANTOPEN|CORRUPT|NOTADB|READONLY|BUSY|LOCKED|PROTOCOL)/;
export const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
};

type Keyset = [number, string];

/**
 * A statement's slice: where the slice after `after` ends (its STATEMENT_SLICE-th row from `start`), and
 * the sums of the rows in (after, until], whose created_at lie in [start, last] (the range SQLite seeks
 * the index on).
 */
const sliceEnd = (merchantId: string, start: number, to: number, after: Keyset) =>
  read(
    undefined,
    sql`SELECT created_at, reference_id FROM payouts
      WHERE merchant_id = ${merchantId} AND created_at >= ${start} AND created_at < ${to}
      AND (created_at, reference_id) > (${after[0]}, ${after[1]})
      ORDER BY created_at, reference_id LIMIT 1 OFFSET ${STATEMENT_SLICE - 1}`,
    ([end]: ({ created_at: number; reference_id: string } | undefined)[]) =>
      end && ([end.created_at, end.reference_id] as Keyset),
  );
const sliceSums = (merchantId: string, start: number, last: number, after: Keyset, until: Keyset) =>
  read(
    undefined,
    sql`SELECT currency, status, count(*) AS count, sum(amount_minor) AS minor FROM payouts
      WHERE merchant_id = ${merchantId} AND created_at BETWEEN ${start} AND ${last}
      AND (created_at, reference_id) > (${after[0]}, ${after[1]})
      AND (created_at, reference_id) <= (${until[0]}, ${until[1]}) GROUP BY currency, status`,
    (rows: StatementRow[]) => rows,
  );

/**
 * SqliteStore's reads (store.reads.ts), each synchronous and counted in `databaseCalls`: SQLite's
 * refusals are a StoreUnavailableError. A scan reads a page at a time, the event loop turning between pages.
 */
export abstract class SqliteReads extends StoreReads {
  protected readonly db: Database;

  /** The file's statements, each prepared once (sqlite.prepared.ts). */
  protected readonly q: SqliteRunner;

  constructor(protected readonly opts: SqliteStoreOptions) {
    super(opts);
    this.db = opts.file.db;
    this.q = sqliteRunner(this.db);
  }

  protected async run<T>(reading: Read<T>): Promise<T> {
    const work = () => this.sync(reading);
    return reading.scan ? this.page(work) : this.guarded(work);
  }

  /**
   * Summed a slice of STATEMENT_SLICE rows at a time (keyset slices, each its own statement, the
   * event loop free between them): one statement over a large window would hold the process for
   * as long as it reads. A payout written while it runs is counted once, with its status then.
   */
  override async statement(merchantId: string, from: number, to: number): Promise<StatementLine[]> {
    const lines = new Map<string, StatementLine>();
    let after: Keyset = [from - 1, ''];
    for (let done = false; !done;) {
      done = await this.page(() => {
        // Each slice's range starts where the last ended, as createdBetween's pages do.
        const start = Math.max(from, after[0]);
        const end = this.sync(sliceEnd(merchantId, start, to, after));
        // The last slice reaches the window's end: every row left is before (to, ''), at to - 1 ms at the latest.
        const until: Keyset = end ?? [to, ''];
        for (const r of this.sync(sliceSums(merchantId, start, end ? end[0] : to - 1, after, until))) {
          const key = `${r.currency}\n${r.status}`;
          const line = lines.get(key) ?? { currency: r.currency, status: r.status, count: 0, amountMinor: 0 };
          lines.set(key, {
            ...line,
            count: line.count + Number(r.count),
            amountMinor: line.amountMinor + Number(r.minor),
          });
        }
        after = until;
        return end === undefined;
      });
    }
    const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...lines.values()].sort((a, b) => byText(a.currency, b.currency) || byText(a.status, b.status));
  }

  /** The read's statements, run now (inside a write's transaction too), uncounted. */
  protected sync<T>(reading: Read<T>): T {
    return reading.answer(reading.statements.map((s): Rows => this.q.all<object>(sqlFor(s.sql, 'sqlite'))));
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
