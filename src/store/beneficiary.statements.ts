import {
  accountKey,
  AccountDetails,
  Beneficiary,
  BeneficiaryQuery,
  searchText,
} from '../disbursements/beneficiary.model';
import { join, raw, sql, Sql } from '../database/sql.dialect';

/*
 * The beneficiary book's statements, each written once for both engines (sql.dialect.ts compiles
 * them). The row keeps the record as JSON and the columns its queries need.
 */

/** The stored record's text. */
export const recordOf = (merchantId: string, id: string): Sql =>
  sql`SELECT record FROM beneficiaries WHERE merchant_id = ${merchantId} AND id = ${id}`;

/** An active (not archived) beneficiary of the merchant with the account key of `details`, other than `except`. */
export function activeWithKey(merchantId: string, details: AccountDetails, except?: string): Sql {
  const other = except === undefined ? raw('') : sql` AND id <> ${except}`;
  return sql`SELECT record FROM beneficiaries
  WHERE merchant_id = ${merchantId} AND account_key = ${accountKey(details)} AND status <> 'ARCHIVED'${other} LIMIT 1`;
}

/**
 * Inserts `b` unless an active one of the merchant holds its account key: the unique index
 * beneficiaries_active_account decides, so a concurrent insert of the same key waits for the other's
 * commit and then stores nothing. Answers a row when stored.
 */
export function insertRow(b: Beneficiary): Sql {
  const [status, channel, search, key, record] = columns(b);
  return sql`INSERT INTO beneficiaries (merchant_id, id, created_at, status, channel, search_text, account_key, record)
  VALUES (${b.merchantId}, ${b.id}, ${Date.parse(b.createdAt)}, ${status}, ${channel}, ${search}, ${key}, ${record})
  ON CONFLICT (merchant_id, account_key) WHERE status <> 'ARCHIVED' DO NOTHING RETURNING id`;
}

/**
 * Writes `b` over the row of `merchantId`, `id` only while its record is still exactly `expected`
 * (the text the change was made on) and, unless it archives it, no other active one holds its
 * account key. Answers a row when written.
 */
export function updateRow(merchantId: string, id: string, expected: string, b: Beneficiary): Sql {
  const [status, channel, search, key, record] = columns(b);
  const free = b.status === 'ARCHIVED' ? raw('') : sql` AND NOT EXISTS (${activeWithKey(merchantId, b.details, id)})`;
  return sql`UPDATE beneficiaries SET status = ${status}, channel = ${channel}, search_text = ${search},
  account_key = ${key}, record = ${record}
  WHERE merchant_id = ${merchantId} AND id = ${id} AND record = ${expected}${free} RETURNING id`;
}

function columns(b: Beneficiary) {
  return [b.status, b.details.channel, searchText(b), accountKey(b.details), JSON.stringify(b)] as const;
}

/** `%` and `_` match themselves in a search. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The page and the count of a book query. */
export function bookQuery(merchantId: string, query: BeneficiaryQuery): { page: Sql; count: Sql } {
  const { status, channel, search } = query.filter;
  const where = join(
    [
      sql`merchant_id = ${merchantId}`,
      ...(status ? [sql`status = ${status}`] : []),
      ...(channel ? [sql`channel = ${channel}`] : []),
      ...(search ? [sql`search_text LIKE ${`%${likeEscaped(search.toLowerCase())}%`} ESCAPE '\\'`] : []),
    ],
    ' AND ',
  );
  const { after } = query;
  const from = after
    ? sql` AND (created_at > ${after.at} OR (created_at = ${after.at} AND id > ${after.id}))`
    : raw('');
  return {
    page: sql`SELECT record FROM beneficiaries WHERE ${where}${from} ORDER BY created_at, id LIMIT ${query.limit + 1}`,
    count: sql`SELECT count(*) AS count FROM beneficiaries WHERE ${where}`,
  };
}
