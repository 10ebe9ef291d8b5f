import { accountKey, Beneficiary, BeneficiaryQuery, searchText } from '../disbursements/beneficiary.model';

/*
 * The beneficiary book's statements, each written once with `?` placeholders: SQLite uses them as
 * they are, PostgreSQL numbers them (sql.dialect.ts). The row keeps the record as JSON and the
 * columns its queries need.
 */

export const GET_BENEFICIARY = 'SELECT record FROM beneficiaries WHERE merchant_id = ? AND id = ?';

/** Another beneficiary of the merchant, not archived, with the same account key. */
export const ACTIVE_DUPLICATE = `SELECT record FROM beneficiaries
  WHERE merchant_id = ? AND account_key = ? AND status <> 'ARCHIVED' AND id <> ? LIMIT 1`;

export const INSERT_BENEFICIARY = `INSERT INTO beneficiaries
  (merchant_id, id, created_at, status, channel, search_text, account_key, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

export const UPDATE_BENEFICIARY = `UPDATE beneficiaries SET status = ?, channel = ?, search_text = ?, account_key = ?,
  record = ? WHERE merchant_id = ? AND id = ?`;

/** The values of INSERT_BENEFICIARY. */
export function insertValues(b: Beneficiary): unknown[] {
  return [b.merchantId, b.id, Date.parse(b.createdAt), ...columns(b)];
}

/** The values of UPDATE_BENEFICIARY. */
export function updateValues(b: Beneficiary): unknown[] {
  return [...columns(b), b.merchantId, b.id];
}

function columns(b: Beneficiary): unknown[] {
  return [b.status, b.details.channel, searchText(b), accountKey(b.details), JSON.stringify(b)];
}

/** `%` and `_` match themselves in a search. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The page and the count of a book query, with `?` placeholders. */
export function bookQuery(merchantId: string, query: BeneficiaryQuery) {
  const where = ['merchant_id = ?'];
  const values: unknown[] = [merchantId];
  const { status, channel, search } = query.filter;
  const add = (condition: string, value: unknown) => {
    where.push(condition);
    values.push(value);
  };
  if (status) add('status = ?', status);
  if (channel) add('channel = ?', channel);
  if (search) add("search_text LIKE ? ESCAPE '\\'", `%${likeEscaped(search.toLowerCase())}%`);
  const count = { sql: `SELECT count(*) AS count FROM beneficiaries WHERE ${where.join(' AND ')}`, values };
  const after = query.after ? [' AND (created_at > ? OR (created_at = ? AND id > ?))'] : [];
  const afterValues = query.after ? [query.after.at, query.after.at, query.after.id] : [];
  const page = {
    sql: `SELECT record FROM beneficiaries WHERE ${where.join(' AND ')}${after.join('')} ORDER BY created_at, id LIMIT ?`,
    values: [...values, ...afterValues, query.limit + 1],
  };
  return { page, count };
}
