import { Client } from 'pg';

let queries = 0;

/**
 * Counts every query the gateway's PostgreSQL clients send. node-postgres never pipelines: each call is one round
 * trip (BEGIN and COMMIT included), so the count is the gateway's round trips to the database.
 */
export function countDatabaseQueries(): void {
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function counted(this: unknown, ...args: unknown[]) {
    queries += 1;
    return query.apply(this, args);
  };
}

/** Queries sent so far (0 when nothing counts, as in SQLite mode). */
export function databaseQueries(): number {
  return queries;
}
