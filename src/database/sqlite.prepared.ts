import type { Database, RunResult, Statement } from 'better-sqlite3';
import { compile, Sql } from './sql.dialect';

/** Runs `sql` statements on an SQLite file: each text prepared once per file (up to PREPARED_LIMIT kept), however many callers. */
export interface SqliteRunner {
  run(statement: Sql): RunResult;
  get<T>(statement: Sql): T | undefined;
  all<T>(statement: Sql): T[];
}

/** Prepared statements by text, per file; they go when the file's Database object does. */
const PREPARED = new WeakMap<Database, Map<string, Statement>>();

/**
 * Statements kept per file: every fixed shape the gateway runs, with room to spare. A text that
 * varies (a list of N placeholders) could otherwise add one for every N; past the bound the least
 * recently used goes, and is prepared again if it comes back.
 */
export const PREPARED_LIMIT = 512;

export function sqliteRunner(db: Database): SqliteRunner {
  let prepared = PREPARED.get(db);
  if (!prepared) {
    prepared = new Map();
    PREPARED.set(db, prepared);
  }
  const cache = prepared;
  const bound = (statement: Sql): [Statement, unknown[]] => {
    const { text, values } = compile(statement, 'sqlite');
    let found = cache.get(text);
    if (found) {
      // Most recently used last: a Map keeps insertion order, so the first key is the one to drop.
      cache.delete(text);
    } else {
      found = db.prepare(text);
      if (cache.size >= PREPARED_LIMIT) cache.delete(cache.keys().next().value as string);
    }
    cache.set(text, found);
    return [found, values];
  };
  return {
    run: (statement) => {
      const [s, values] = bound(statement);
      return s.run(...values);
    },
    get: <T>(statement: Sql) => {
      const [s, values] = bound(statement);
      return s.get(...values) as T | undefined;
    },
    all: <T>(statement: Sql) => {
      const [s, values] = bound(statement);
      return s.all(...values) as T[];
    },
  };
}
