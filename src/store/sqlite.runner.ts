import type { Database, Statement } from 'better-sqlite3';
import { compile, Sql } from '../database/sql.dialect';
import { Rows } from './store.read';

/**
 * Runs a statement on the embedded file and answers its rows, synchronously: each compiled text is
 * prepared once and kept (the texts are the code's own shapes, so the cache stays small).
 */
export function sqliteRunner(db: Database): (statement: Sql) => Rows {
  const prepared = new Map<string, Statement>();
  return (statement) => {
    const { text, values } = compile(statement, 'sqlite');
    let ready = prepared.get(text);
    if (!ready) {
      ready = db.prepare(text);
      prepared.set(text, ready);
    }
    return ready.all(...values) as Rows;
  };
}
