import type { QueryResultRow } from 'pg';
import { AuditDraft } from '../disbursements/audit.entry';
import { accountKey, Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { BeneficiaryWrite } from '../disbursements/disbursement.ports';
import { numbered } from '../database/sql.dialect';
import {
  ACTIVE_DUPLICATE,
  bookQuery,
  GET_BENEFICIARY,
  INSERT_BENEFICIARY,
  insertValues,
  UPDATE_BENEFICIARY,
  updateValues,
} from './beneficiary.statements';

/*
 * The beneficiary book on PostgreSQL. PostgresStore runs each write in one transaction holding the
 * merchant's book lock (taken first), so the duplicate check, the write and its audit entries are
 * one step against any replica's write of the same book; the entries are appended last, so the
 * merchant's audit head row is locked only for the transaction's COMMIT.
 */

export const GET = numbered(GET_BENEFICIARY);
const FOR_UPDATE = `${GET} FOR UPDATE`;
const DUPLICATE = numbered(ACTIVE_DUPLICATE);
const INSERT = numbered(INSERT_BENEFICIARY);
const UPDATE = numbered(UPDATE_BENEFICIARY);

/** What a beneficiary's change threw (a refusal), carried past the store's outage mapping as it is. */
export class ChangeRefused extends Error {
  constructor(readonly refusal: unknown) {
    super('the change refused the write');
  }
}

type Append = (drafts: readonly AuditDraft[]) => Promise<void>;

/** One statement in the write's transaction, answered with its rows. */
export type Sql = <R extends QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;

const parsed = (row: { record: string } | undefined) => (row ? (JSON.parse(row.record) as Beneficiary) : undefined);

async function duplicateOf(sql: Sql, b: Beneficiary): Promise<Beneficiary | undefined> {
  const rows = await sql<{ record: string }>(DUPLICATE, [b.merchantId, accountKey(b.details), b.id]);
  return parsed(rows[0]);
}

export async function insertBeneficiaryRow(
  sql: Sql,
  write: BeneficiaryWrite,
  append: Append,
): Promise<Beneficiary | undefined> {
  const duplicate = await duplicateOf(sql, write.beneficiary);
  if (duplicate) return duplicate;
  await sql(INSERT, insertValues(write.beneficiary));
  await append(write.audit);
  return undefined;
}

export async function updateBeneficiaryRow(
  sql: Sql,
  merchantId: string,
  id: string,
  change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  append: Append,
): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
  const rows = await sql<{ record: string }>(FOR_UPDATE, [merchantId, id]);
  const current = parsed(rows[0]);
  if (!current) return {};
  let write: BeneficiaryWrite | undefined;
  try {
    write = change(current);
  } catch (refusal) {
    throw new ChangeRefused(refusal);
  }
  if (!write) return { stored: current };
  const { beneficiary } = write;
  const duplicate = beneficiary.status === 'ARCHIVED' ? undefined : await duplicateOf(sql, beneficiary);
  if (duplicate) return { duplicate };
  await sql(UPDATE, updateValues(beneficiary));
  await append(write.audit);
  return { stored: beneficiary };
}

export async function beneficiaryPage(
  query: (sql: string, values: unknown[]) => Promise<Record<string, unknown>[]>,
  merchantId: string,
  book: BeneficiaryQuery,
): Promise<BeneficiaryPage> {
  const { page, count } = bookQuery(merchantId, book);
  const rows = (await query(numbered(page.sql), page.values)) as { record: string }[];
  const [{ count: total }] = (await query(numbered(count.sql), count.values)) as { count: string }[];
  return {
    beneficiaries: rows.slice(0, book.limit).map((row) => parsed(row) as Beneficiary),
    hasMore: rows.length > book.limit,
    totalCount: Number(total),
  };
}
