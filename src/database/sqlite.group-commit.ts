import type { Database, Statement } from 'better-sqlite3';

/**
 * Writes one commit holds at most: a flood is committed in groups of this many, the event loop
 * free between them (a payout's write takes tens of microseconds, so a full group a few ms).
 */
export const GROUP_LIMIT = 64;

/**
 * How long a write waits for company while writes keep coming (a group committed less than this
 * long ago): each COMMIT writes every page its group dirtied to the WAL once, so under load larger
 * groups write far fewer pages per payout. A write that comes alone, after a quiet spell, is
 * committed in the same event-loop turn, as before: only a busy file trades this much latency.
 */
export const GROUP_LINGER_MS = 1;

export interface GroupCommitOptions {
  /** Writes one commit holds at most (GROUP_LIMIT by default). */
  limit?: number;
  /** GROUP_LINGER_MS by default; 0 commits every group in the turn its first write was asked for. */
  lingerMs?: number;
  /** Told after each COMMIT how many writes it held. */
  onCommit?: (writes: number) => void;
  /** Asked before each group: an error means the file must not be written now, and every write in the group gets it. */
  refuse?: () => Error | undefined;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending {
  work: () => unknown;
  settle: (outcome: Outcome) => void;
}

/**
 * The one way into a SQLite file for writes: the writes asked for in the same event-loop turn (on a
 * busy file, within GROUP_LINGER_MS) are committed together, in one transaction (one BEGIN/COMMIT
 * and one WAL append instead of one each).
 * Each write runs synchronously in its own savepoint (one alone in its group, in the group's
 * transaction), so a write that throws is rolled back alone and only its caller sees the error. Every caller's promise settles after the COMMIT holding its write,
 * in the order the writes were asked for; when the COMMIT fails, every caller in it gets that error.
 * Reads need none of this: the group runs in one synchronous step, so no read sees it half done.
 */
export class GroupCommit {
  private readonly limit: number;
  private readonly lingerMs: number;
  /** performance.now() of the last group flushed, to tell a busy file from a quiet one. */
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private readonly onCommit?: (writes: number) => void;
  private readonly refuse?: () => Error | undefined;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly undo: Statement;
  private queue: Pending[] = [];
  private flushQueued = false;
  /** Work to run in the next group after its writes, by key (see `alongside`). */
  private readonly besides = new Map<string, () => void>();
  /** Runs last in every group, just before its COMMIT (see `beforeEachCommit`). */
  private readonly finishers: (() => void)[] = [];

  constructor(
    private readonly db: Database,
    options: GroupCommitOptions = {},
  ) {
    this.limit = options.limit ?? GROUP_LIMIT;
    this.lingerMs = options.lingerMs ?? GROUP_LINGER_MS;
    this.onCommit = options.onCommit;
    this.refuse = options.refuse;
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT grouped');
    this.release = db.prepare('RELEASE grouped');
    this.undo = db.prepare('ROLLBACK TO grouped');
  }

  /** Runs `work` inside the next group's transaction; resolves with its value once that group is committed. */
  async write<T>(work: () => T): Promise<T> {
    const outcome = await new Promise<Outcome>((settle) => {
      this.queue.push({ work, settle });
      this.queueFlush();
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.value as T;
  }

  /**
   * Runs `work` inside the next group's transaction, after that group's writes; of several under
   * one key, the latest. Nothing waits for it and it starts no group of its own: for state a
   * writer keeps in memory whose copy in the file may lag by one group (the provider budget's
   * tokens). One that throws is rolled back alone and dropped.
   */
  alongside(key: string, work: () => void): void {
    this.besides.set(key, work);
  }

  /**
   * Runs `finish` in every group, after its writes and what runs alongside, just before its COMMIT:
   * for what a writer gathers over a group's writes and writes once (the merchants' head rows). It is
   * part of the group: one that throws fails the whole group, and every write in it gets the error.
   */
  beforeEachCommit(finish: () => void): void {
    this.finishers.push(finish);
  }

  /** Commits every write asked for so far, and what runs alongside, now (before the file is closed). */
  drain(): void {
    while (this.queue.length > 0) this.flush();
    if (this.besides.size > 0) this.flush();
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    const run = () => {
      this.flushQueued = false;
      this.flush();
    };
    // Busy (a group went less than lingerMs ago) and room left in the group: gather more writes first.
    const busy = performance.now() - this.lastFlushAt < this.lingerMs && this.queue.length < this.limit;
    if (busy) setTimeout(run, this.lingerMs);
    else setImmediate(run);
  }

  private flush(): void {
    const group = this.queue.splice(0, this.limit);
    if (group.length > 0) this.lastFlushAt = performance.now();
    if (this.queue.length > 0) this.queueFlush();
    if (group.length === 0 && this.besides.size === 0) return;
    const refused = this.refuse?.();
    if (refused) {
      for (const pending of group) pending.settle({ ok: false, error: refused });
      return;
    }
    const outcomes: Outcome[] = [];
    // A write alone in its group needs no savepoint: if it throws, the group's rollback is its own.
    const alone = group.length === 1 && this.besides.size === 0;
    try {
      this.begin.run();
      for (const [i, pending] of group.entries()) {
        if (!alone) this.savepoint.run();
        try {
          // Not released: the COMMIT releases every savepoint of the group at once, and the next
          // write's own savepoint is always the newest, the one a rollback returns to.
          outcomes.push({ ok: true, value: pending.work() });
        } catch (error) {
          if (alone) throw error;
          if (!this.db.inTransaction) {
            // SQLite ended the whole transaction (a full disk, an I/O error): the writes before this
            // one are gone with it, those after it have not run and wait for the next group.
            this.queue.unshift(...group.slice(i + 1));
            if (this.queue.length > 0) this.queueFlush();
            for (const done of group.slice(0, i)) done.settle({ ok: false, error });
            pending.settle({ ok: false, error });
            return;
          }
          outcomes[i] = { ok: false, error };
          this.undo.run();
          this.release.run();
        }
      }
      this.runBesides();
      for (const finish of this.finishers) finish();
      this.commit.run();
    } catch (error) {
      this.abandon();
      for (const [i, pending] of group.entries()) {
        const own = outcomes[i];
        pending.settle(own && !own.ok ? own : { ok: false, error });
      }
      return;
    }
    this.onCommit?.(group.length);
    for (const [i, pending] of group.entries()) pending.settle(outcomes[i]);
  }

  /** What runs alongside, each in its own savepoint: one that throws is undone alone, unless SQLite ended the group. */
  private runBesides(): void {
    const works = [...this.besides.values()];
    this.besides.clear();
    for (const work of works) {
      this.savepoint.run();
      try {
        work();
      } catch (error) {
        if (!this.db.inTransaction) throw error;
        this.undo.run();
        this.release.run();
      }
    }
  }

  /** Rolls back what is left of a failed group; a rollback that fails too leaves SQLite to end it. */
  private abandon(): void {
    try {
      if (this.db.inTransaction) this.rollback.run();
    } catch {
      // The group's callers already get the error that ended it.
    }
  }
}
