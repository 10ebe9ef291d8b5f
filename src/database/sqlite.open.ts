import Database from 'better-sqlite3';
import { closeSync, constants, fstatSync, mkdirSync, openSync, realpathSync, Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { lockExclusive } from './file.flock';
import { GroupCommit } from './sqlite.group-commit';
import { WAL_LIMIT_BYTES, WAL_STOP_BYTES, WalBound } from './sqlite.wal';
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

/**
 * Writes stopped because the file may not be written now (it was replaced under the gateway, or a
 * reader pins its WAL past its bound). Coded as SQLite's own read-only refusal, so the store answers
 * it as the file being unusable right now.
 */
export class WritesStoppedError extends Error {
  readonly code = 'SQLITE_READONLY_STOPPED';
  constructor(reason: string) {
    super(reason);
    this.name = 'WritesStoppedError';
  }
}

export interface SqliteOptions {
  /** WAL_STOP_BYTES by default. */
  walStopBytes?: number;
}

export interface SqliteHandle {
  db: Database.Database;
  /** The file's one committer: every write to the file goes through it (reads go to `db` directly). */
  writes: GroupCommit;
  /**
   * Folds the WAL into the file and truncates it, when it has grown past WAL_LIMIT_BYTES (a reader
   * held an old snapshot while writes went on) or past half the space left on its disk (a disk
   * smaller than the limit, where the WAL's own space is what there is to give back). Never waits:
   * while a reader still holds the WAL, it folds what it can and the next call tries again. Every
   * group commit first makes the same check against walStopBytes: a WAL a reader pins past it, or
   * past half the space left on its disk, stops writes until it can be emptied.
   */
  checkpoint(): void;
  /**
   * Why the file must not be written now: the path no longer names the file this process holds
   * (renamed over, or removed: final, the gateway writes nothing more until restarted), or a reader
   * pins a WAL grown past its bound (until a write or a checkpoint empties it).
   */
  problem(): string | undefined;
  close(): void;
}

/** What a store, ledger or queue on the file needs: the file to read, its committer to write. */
export type SqliteFile = Pick<SqliteHandle, 'db' | 'writes'>;

/**
 * Files this process holds, by device and inode. A second open of one of them is refused here,
 * before any descriptor is opened: closing a descriptor of the file would drop every POSIX lock
 * the process holds on it, SQLite's own included.
 */
const held = new Set<string>();

/**
 * Opens (creating it and its folder when absent) the embedded file, holding it for as long as it
 * is open, and migrates it. The hold is flock(2) twice: on the database file itself, so it follows
 * the file whatever names it (a hard link, a symbolic link, another spelling of the path), and on
 * `<file>.lock` beside it, so it stays with the path when another file is renamed over it; the
 * operating system releases both when the process ends however it ends. Every group commit first
 * checks that the path still names the file held, and writes nothing once it does not.
 * Readers take no flock, so `npm run audit:verify` can read while the gateway runs.
 * WAL with synchronous=NORMAL: a committed write survives the process crashing; a power cut may
 * lose the last moment's writes but never corrupts the file.
 */
export function openSqlite(path: string, options: SqliteOptions = {}): SqliteHandle {
  const walStopBytes = options.walStopBytes ?? WAL_STOP_BYTES;
  const hold = path === ':memory:' ? undefined : holdFile(path);
  let db: Database.Database | undefined;
  try {
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Statement journals (what a savepoint, or a statement inside the group's transaction, needs to
    // roll back alone) in memory, not in temporary files opened, written and removed for every group
    // commit: a crash needs none of them, the WAL alone makes a COMMIT whole or absent.
    db.pragma('temp_store = MEMORY');
    db.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
    migrateSqlite(db);
    const opened = db;
    // SQLite names the WAL after the file's real path, symbolic links resolved.
    const wal = hold && new WalBound(opened, `${realpathSync(path)}-wal`, path, walStopBytes);
    const problem = () => hold?.lost() ?? wal?.pinned;
    const writes = new GroupCommit(opened, {
      refuse: () => {
        const why = hold?.lost() ?? wal?.beforeWrite();
        return typeof why === 'string' ? new WritesStoppedError(why) : why;
      },
    });
    return {
      db: opened,
      writes,
      checkpoint() {
        wal?.settle(WAL_LIMIT_BYTES);
      },
      problem,
      close() {
        // The database first: the hold's descriptor, closed, drops the process's locks on the file.
        if (opened.open) {
          writes.drain();
          opened.close();
        }
        hold?.release();
      },
    };
  } catch (error) {
    db?.close();
    hold?.release();
    throw error;
  }
}

/** Opens a file only to read it (the audit verifier): no hold, no migration. */
export function readSqlite(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true });
}

const identity = (stats: Stats) => `${stats.dev}:${stats.ino}`;

interface Hold {
  /** Why the held file's path no longer names it, once it does not (sticky). */
  lost(): string | undefined;
  release(): void;
}

/** LOCK_EX|LOCK_NB on an open descriptor; held through another descriptor, the file is in use. */
function lockOrRefuse(fd: number, path: string): void {
  if (!lockExclusive(fd)) throw new DatabaseInUseError(path);
}

/**
 * Takes LOCK_EX|LOCK_NB on the file (created empty on first start: SQLite reads an empty file as a
 * new database) and on `<real path>.lock`, each through a descriptor kept open until release. flock
 * belongs to the open file description, so another descriptor of the same file fails with EAGAIN, in
 * this process or another. The lock file is never removed; one deleted as stale admits no second
 * process while the file itself is held, and a file renamed over the database stops this one's writes.
 */
function holdFile(path: string): Hold {
  mkdirSync(dirname(path), { recursive: true });
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing && held.has(identity(existing))) throw new DatabaseInUseError(path);
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  const id = identity(fstatSync(fd));
  const real = realpathSync(path);
  const lockPath = `${real}.lock`;
  let lockFd: number | undefined;
  try {
    lockOrRefuse(fd, path);
    lockFd = openSync(lockPath, constants.O_RDWR | constants.O_CREAT, 0o644);
    lockOrRefuse(lockFd, path);
  } catch (error) {
    if (lockFd !== undefined) closeSync(lockFd);
    closeSync(fd);
    throw error;
  }
  held.add(id);
  let lost: string | undefined;
  return {
    lost() {
      if (lost !== undefined) return lost;
      const now = statSync(real, { throwIfNoEntry: false });
      if (!now || identity(now) !== id)
        lost = `the database file ${path} was ${now ? 'replaced by another file' : 'removed'} while the gateway ran: it writes nothing more; stop it, find which file holds the latest payouts, and start one gateway on it`;
      return lost;
    },
    release() {
      held.delete(id);
      closeSync(lockFd);
      closeSync(fd);
    },
  };
}
