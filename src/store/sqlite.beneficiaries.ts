import { AuditDraft } from '../disbursements/audit.entry';
import { SqliteRunner } from '../database/sqlite.prepared';
import { recordOf } from './beneficiary.statements';
import { BookStatements } from './beneficiary.write';

/** What SqliteStore lends the book: its counted, guarded reads, its group-committed writes, its chain. */
export interface SqliteBookHost {
  q: SqliteRunner;
  read<T>(work: () => T): T;
  write<T>(work: () => T): Promise<T>;
  append(merchantId: string, drafts: readonly AuditDraft[]): void;
}

/**
 * The book's statements on the embedded file: a write runs in its own savepoint of the file's next
 * group commit (nothing else of this process runs in between), its audit entries appended in it.
 */
export function sqliteBook(host: SqliteBookHost): BookStatements {
  const { q } = host;
  return {
    read: async (merchantId, id) => host.read(() => q.get<{ record: string }>(recordOf(merchantId, id))?.record),
    write: (step) =>
      host.write(() => {
        if (q.get(step.write)) {
          host.append(step.merchantId, step.audit);
          return { done: true };
        }
        return { done: false, duplicate: step.duplicate && q.get<{ record: string }>(step.duplicate)?.record };
      }),
  };
}
