import { Dialect, Sql } from '../database/sql.dialect';

/** Rows as an engine answers them: the read that sent the statement knows their shape. */
export type Rows = readonly object[];

/** One statement's text: the same for both engines, or one each where their SQL differs. */
export type DialectSql = Sql | Readonly<Record<Dialect, Sql>>;

export const sqlFor = (statement: DialectSql, dialect: Dialect): Sql =>
  statement instanceof Sql ? statement : statement[dialect];

/**
 * A read written once for both engines: its statements and how their rows become the answer. Each
 * engine's runner sends them: SQLite in one synchronous step, PostgreSQL side by side, each its own
 * round trip, prepared once per connection under `name` (a fixed text shape) when it has one.
 */
export interface Read<T> {
  statements: readonly { name?: string; sql: DialectSql }[];
  answer: (results: Rows[]) => T;
  /** One page of a scan (an export, a statement, the audit trail): SQLite lets the event loop turn first. */
  scan?: boolean;
}

/** A read of one statement, its rows of shape R. */
export function read<R, T>(
  name: string | undefined,
  statement: DialectSql,
  answer: (rows: R[]) => T,
  scan = false,
): Read<T> {
  return { statements: [{ name, sql: statement }], answer: ([rows]) => answer(rows as R[]), scan };
}
