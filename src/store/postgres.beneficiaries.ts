import type { QueryResultRow } from 'pg';
import { KeyedDraft } from '../disbursements/audit.entry';
import { raw, sql, Sql } from '../database/sql.dialect';
import { recordOf } from './beneficiary.statements';
import { AuditAppend } from './postgres.statements';
import { BookStatements, BookWrite, Written } from './beneficiary.write';

/*
 * The beneficiary book on PostgreSQL. Each write (beneficiary.write.ts) is one statement in
 * autocommit, one round trip: the conditional write, the duplicate that stopped it and its audit
 * entries, appended through audit_append only when the write happened. The merchant's audit head row
 * is locked by that append, inside the server, until the statement commits; nothing else is locked.
 */

/** One statement, prepared under a name its label and text make (one text per name), answered with its rows. */
export type Run = <R extends QueryResultRow>(name: string | undefined, statement: Sql) => Promise<R[]>;

/** The index that keeps one active beneficiary per account key (schema version 6). */
const ACTIVE_ACCOUNT = 'beneficiaries_active_account';

/** The book's statements, run one round trip each; the store keyed each write's audit entries. */
export function postgresBook(run: Run): BookStatements {
  return {
    async read(merchantId, id) {
      const [row] = await run<{ record: string }>('beneficiary-get', recordOf(merchantId, id));
      return row?.record;
    },
    async write(step) {
      const name = `beneficiary-${step.shape}`;
      try {
        const [row] = await run<{ done: number; duplicate: string | null }>(name, statement(step, step.audit));
        return { done: row.done === 1, duplicate: row.duplicate ?? undefined } satisfies Written;
      } catch (error) {
        // An update that gave a row a key another write took after this statement's snapshot was
        // refused by the index, all of it: nothing was written, and a new try sees that one.
        if ((error as { constraint?: unknown }).constraint === ACTIVE_ACCOUNT) return { done: false };
        throw error;
      }
    },
  };
}

/** The write, its audit entries appended when it happened (postgres.statements.ts), and the duplicate when one stopped it. */
function statement(step: BookWrite, entries: readonly KeyedDraft[]): Sql {
  const duplicate = step.duplicate ? sql`(${step.duplicate})` : raw('NULL');
  return AuditAppend.withAudit(
    sql`written AS (${step.write})`,
    AuditAppend.of(step.merchantId, entries, raw('written')),
    sql`(SELECT count(*) FROM written)::int AS done, ${duplicate} AS duplicate`,
  );
}
