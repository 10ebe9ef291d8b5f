import Database from 'better-sqlite3';
import { Client } from 'pg';
import { GroupCommit } from '../src/database/sqlite.group-commit';

const counts = { queries: 0, statements: 0, groupWrites: 0 };

/**
 * Counts what the gateway asks of its database. PostgreSQL: every query its clients send; node-postgres
 * never pipelines, so each is one round trip (BEGIN and COMMIT included). SQLite: every statement run
 * (SAVEPOINT, BEGIN and COMMIT included), and every write handed to the group commit.
 */
export function countDatabaseWork(): void {
  const client = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function counted(this: unknown, ...args: unknown[]) {
    counts.queries += 1;
    return query.apply(this, args);
  };
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const name of ['run', 'get', 'all', 'iterate']) {
    const original = statement[name];
    statement[name] = function counted(this: unknown, ...args: unknown[]) {
      counts.statements += 1;
      return original.apply(this, args);
    };
  }
  const group = GroupCommit.prototype as unknown as { write: (...args: unknown[]) => unknown };
  const write = group.write;
  group.write = function counted(this: unknown, ...args: unknown[]) {
    counts.groupWrites += 1;
    return write.apply(this, args);
  };
}

/** Queries sent to PostgreSQL so far (0 in SQLite mode). */
export const databaseQueries = (): number => counts.queries;
/** SQLite statements run so far, and writes handed to its group commit (0 in PostgreSQL mode). */
export const sqliteStatements = (): number => counts.statements;
export const groupWrites = (): number => counts.groupWrites;
