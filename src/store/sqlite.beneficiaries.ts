import { KeyedDraft } from '../disbursements/audit.entry';
import { SqliteRunner } from '../database/sqlite.prepared';
import { recordOf } from './beneficiary.statements';
import { BookStatements } from './beneficiary.write';

/** What the file's engine runs the book's statements with: its counted reads, its group-committed writes, its chain. */
export interface SqliteBookRuns {
  read<T>(work: () => T): T;
  write<T>(work: () => T): Promise<T>;
  append(merchantId: string, entries: readonly KeyedDraft[]): void;
}

/**
 * The book's statements on the embedded file: a write runs in its own savepoint of the file's next
 * group commit (nothing else of this process runs in between), its audit entries appended in it.
 */
export function sqliteBook(q: SqliteRunner, runs: SqliteBookRuns): BookStatements {
  return {
    read: async (merchantId, id) => runs.read(() => q.get<{ record: string }>(recordOf(merchantId, id))?.record),
    write: (step) =>
      runs.write(() => {
        if (q.get(step.write)) {
          runs.append(step.merchantId, step.audit);
          return { done: true };
        }
        return { done: false, duplicate: step.duplicate && q.get<{ record: string }>(step.duplicate)?.record };
      }),
  };
}
