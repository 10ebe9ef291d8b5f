import type { Database } from 'better-sqlite3';
import { AuditDraft } from '../disbursements/audit.entry';
import { Sql } from '../database/sql.dialect';
import { sqliteRunner } from '../database/sqlite.prepared';
import { recordOf } from './beneficiary.statements';
import { BookStatements } from './beneficiary.write';

function first<R>(db: Database, statement: Sql): R | undefined {
  return sqliteRunner(db).get<R>(statement);
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
