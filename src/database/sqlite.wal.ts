import type { Database } from 'better-sqlite3';
import { statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The WAL's size limit (journal_size_limit): SQLite cuts the WAL back to it whenever a checkpoint
 * lets it start over, and past it the housekeeping truncates it. About what 1000 pages (SQLite's
 * automatic checkpoint) take, so a WAL no reader holds stays under it but for a very large write.
 */
export const WAL_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * How far a WAL that a reader pins (an open snapshot keeps every checkpoint from starting it over) may
 * grow before writes stop, as may half the space left on its disk, whichever is less: the disk never
 * fills because of a reader, and what is left can always take in what the WAL holds, at the price of
 * creates answered SERVICE_UNAVAILABLE, nothing sent, until the reader lets go; then the next write
 * (or the next checkpoint) folds and empties the WAL.
 */
export const WAL_STOP_BYTES = 64 * 1024 * 1024;

/** The embedded file's WAL kept within its bounds: truncated when it can be, writes stopped while a reader pins it. */
export class WalBound {
  /** Why writes stop: a reader pins the WAL past its bound (until a checkpoint empties it). */
  pinned?: string;

  constructor(
    private readonly db: Database,
    /** The WAL's path: SQLite names it after the file's real path, symbolic links resolved. */
    private readonly wal: string,
    /** The database's path as configured, for the reason. */
    private readonly shown: string,
    private readonly stopBytes: number,
  ) {}

  /**
   * Folds the WAL into the file and truncates it when it has grown past `threshold` or past half
   * the space left on its disk, never waiting for a reader: while one still holds the WAL, it folds
   * what it can. Then `pinned` says whether a reader keeps it past stopBytes or half the space left.
   * Throws what SQLite answers when the fold fails (a full disk cannot take in the WAL's pages).
   */
  settle(threshold: number): void {
    const size = this.size();
    const { bavail, bsize } = statfsSync(dirname(this.wal));
    const free = bavail * bsize;
    if (size === 0 || size <= Math.min(threshold, free / 2)) {
      this.pinned = undefined;
      return;
    }
    // TRUNCATE waits for readers through the busy handler; with the timeout at 0 it never blocks.
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    let busy: number;
    try {
      busy = (this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]?.busy ?? 0;
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
    const left = this.size();
    this.pinned =
      busy !== 0 && (left > this.stopBytes || left > free / 2)
        ? `a reader holds an old snapshot of ${this.shown}, so its WAL (${Math.round(left / 1048576)} MiB) cannot be emptied: writes stop until that reader ends its transaction, so the disk does not fill`
        : undefined;
  }

  /**
   * Before each group commit (a second of writes can fill a small disk): settle against stopBytes,
   * so a WAL a reader pins stops writes at its bound, and the first write after the reader lets go
   * empties it and goes through. Answers why the group must not be written: the reader, or the
   * error the disk gave the fold (a full disk refuses the group as it would its commit).
   */
  beforeWrite(): string | Error | undefined {
    try {
      this.settle(this.stopBytes);
    } catch (error) {
      this.pinned = undefined;
      return error instanceof Error ? error : new Error(String(error));
    }
    return this.pinned;
  }

  private size(): number {
    return statSync(this.wal, { throwIfNoEntry: false })?.size ?? 0;
  }
}
