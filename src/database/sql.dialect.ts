/**
 * What differs between the engines in a statement written once: SQLite takes `?` placeholders,
 * PostgreSQL numbered ones. A statement is written with `?` and, for PostgreSQL, numbered once
 * when its module loads.
 */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${(n += 1)}`);
}
