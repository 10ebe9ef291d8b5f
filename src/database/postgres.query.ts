import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { compile, Sql } from './sql.dialect';

/**
 * Runs a `sql` statement on PostgreSQL in one round trip. With `name`, the server prepares it once per
 * connection: give a name only to a statement whose text is always the same.
 */
export function pgQuery<R extends QueryResultRow = QueryResultRow>(
  on: Pool | PoolClient,
  statement: Sql,
  name?: string,
): Promise<QueryResult<R>> {
  const { text, values } = compile(statement, 'postgres');
  return on.query<R>(name === undefined ? { text, values } : { name, text, values });
}
