import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrateSqlite } from './schema.migrate';

/** Another process holds the file: one process per SQLite file (replicas share PostgreSQL instead). */
export class DatabaseInUseError extends Error {
  constructor(path: string) {
    super(
      `the SQLite file ${path} is in use by another process: one gateway per file (several replicas share a PostgreSQL database, DATABASE_URL=postgres://...)`,
    );
    this.name = 'DatabaseInUseError';
  }
}

export interface SqliteHandle {
  db: Database.Database;
  close(): void;
}

/**
 * Opens (creating it and its folder when absent) the embedded file, holding its lock for as long
 * as it is open, and migrates it. The lock is a second file in SQLite's exclusive locking mode: the
 * operating system drops it when the process ends however it ends, and the data file stays in
 * ordinary WAL mode, so a reader such as `npm run audit:verify` can read while the gateway runs.
 * WAL with synchronous=NORMAL: a committed write survives the process crashing; a power cut may
 * lose the last moment's writes but never corrupts the file.
 */
export function openSqlite(path: string): SqliteHandle {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const lock = path === ':memory:' ? undefined : takeLock(`${path}.lock`, path);
  let db: Database.Database | undefined;
  try {
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
    const opened = db;
    return {
      db: opened,
      close() {
        if (opened.open) opened.close();
        lock?.close();
      },
    };
  } catch (error) {
    db?.close();
    lock?.close();
    throw error;
  }
}

/** Opens a file only to read it (the audit verifier): no lock, no migration. */
export function readSqlite(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true });
}

function takeLock(lockPath: string, path: string): Database.Database {
  const lock = new Database(lockPath, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE; COMMIT;');
    return lock;
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DatabaseInUseError(path);
    throw error;
  }
}
