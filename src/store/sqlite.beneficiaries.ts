import type { Database, Statement } from 'better-sqlite3';
import { AuditDraft } from '../disbursements/audit.entry';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { compile, Sql } from '../database/sql.dialect';
import { bookQuery, recordOf } from './beneficiary.statements';
import { BookStatements } from './beneficiary.write';

/** Each file's statements, prepared once per text. */
const preparedByFile = new WeakMap<Database, Map<string, Statement>>();

function prepared(db: Database, statement: Sql): { run: Statement; values: unknown[] } {
  const { text, values } = compile(statement, 'sqlite');
  let texts = preparedByFile.get(db);
  if (!texts) preparedByFile.set(db, (texts = new Map<string, Statement>()));
  let run = texts.get(text);
  if (!run) texts.set(text, (run = db.prepare(text)));
  return { run, values };
}

function first<R>(db: Database, statement: Sql): R | undefined {
  const { run, values } = prepared(db, statement);
  return run.get(...values) as R | undefined;
}

/** What SqliteStore lends the book: its counted, guarded reads, its group-committed writes, its chain. */
export interface SqliteBookHost {
  db: Database;
  read<T>(work: () => T): T;
  write<T>(work: () => T): Promise<T>;
  append(merchantId: string, drafts: readonly AuditDraft[]): void;
}

/**
 * The book's statements on the embedded file: a write runs in its own savepoint of the file's next
 * group commit (nothing else of this process runs in between), its audit entries appended in it.
 */
export function sqliteBook(host: SqliteBookHost): BookStatements {
  const { db } = host;
  return {
    read: async (merchantId, id) => host.read(() => first<{ record: string }>(db, recordOf(merchantId, id))?.record),
    write: (step) =>
      host.write(() => {
        if (first(db, step.write)) {
          host.append(step.merchantId, step.audit);
          return { done: true };
        }
        return { done: false, duplicate: step.duplicate && first<{ record: string }>(db, step.duplicate)?.record };
      }),
  };
}

export function readBeneficiary(db: Database, merchantId: string, id: string): Beneficiary | undefined {
  const row = first<{ record: string }>(db, recordOf(merchantId, id));
  return row && (JSON.parse(row.record) as Beneficiary);
}

export function beneficiaryPage(db: Database, merchantId: string, query: BeneficiaryQuery): BeneficiaryPage {
  const { page, count } = bookQuery(merchantId, query);
  const { run, values } = prepared(db, page);
  const rows = run.all(...values) as { record: string }[];
  const { count: totalCount } = first<{ count: number }>(db, count) as { count: number };
  return {
    beneficiaries: rows.slice(0, query.limit).map((row) => JSON.parse(row.record) as Beneficiary),
    hasMore: rows.length > query.limit,
    totalCount,
  };
}
