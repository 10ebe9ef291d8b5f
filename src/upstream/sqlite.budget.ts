import type { Database } from 'better-sqlite3';
import { SqliteFile } from '../database/sqlite.open';
import { SqliteRunner, sqliteRunner } from '../database/sqlite.prepared';
import { Bucket, takeFrom } from './budget.bucket';
import { BucketRow, claim, getBucket, pause, putBucket, sweep } from './budget.statements';
import { BudgetLedger, Take } from './provider.budget';

/** Claims made before expired ones are swept. */
const SWEEP_EVERY = 1000;

/** The budgets of one file, as counted in memory: every ledger on the file shares them. */
interface FileBudgets {
  /** By key; undefined: read from the file and found absent. */
  buckets: Map<string, Bucket | undefined>;
  /** Keys counted since their row was last written. */
  dirty: Set<string>;
}

const FILES = new WeakMap<Database, FileBudgets>();

/**
 * Provider budgets in the embedded file. One process holds the file, so its budgets are counted in
 * memory, shared by every ledger on the file: a take runs no statement and waits for no commit. The
 * counts reach the file with the next group commit of anything (GroupCommit.alongside), so after a
 * crash the file may lack the takes of that last moment; a 429's pause is written at once, before
 * the call that learnt it goes on, and claims as before.
 */
export class SqliteBudgetLedger implements BudgetLedger {
  private readonly q: SqliteRunner;
  private claims = 0;
  private readonly writes: SqliteFile['writes'];
  private readonly budgets: FileBudgets;

  constructor(
    { db, writes }: SqliteFile,
    private readonly now: () => number = Date.now,
  ) {
    this.writes = writes;
    this.q = sqliteRunner(db);
    let budgets = FILES.get(db);
    if (!budgets) {
      budgets = { buckets: new Map(), dirty: new Set() };
      FILES.set(db, budgets);
    }
    this.budgets = budgets;
  }

  async take(key: string, perMinute: number, read: boolean): Promise<Take> {
    return this.takeNow(key, perMinute, read);
  }

  async takePair(key: string, perMinute: number): Promise<{ first: Take; second: boolean }> {
    const first = this.takeNow(key, perMinute, false);
    return { first, second: first.taken && this.takeNow(key, perMinute, false).taken };
  }

  async pause(key: string, ms: number): Promise<void> {
    const now = this.now();
    await this.writes.write(() => this.q.run(pause({ engine: 'sqlite', ms: now }, key, ms)));
    const bucket = this.bucket(key) ?? { at: now, pausedUntil: 0 };
    this.budgets.buckets.set(key, { ...bucket, pausedUntil: Math.max(bucket.pausedUntil, now + ms) });
  }

  async claim(key: string, ms: number): Promise<boolean> {
    return this.writes.write(() => {
      const clock = { engine: 'sqlite', ms: this.now() } as const;
      this.claims += 1;
      if (this.claims % SWEEP_EVERY === 0) this.q.run(sweep(clock));
      return this.q.run(claim(clock, key, ms)).changes === 1;
    });
  }

  async close(): Promise<void> {}

  private takeNow(key: string, perMinute: number, read: boolean): Take {
    const { take, next } = takeFrom(this.bucket(key), perMinute, read, this.now());
    if (next) {
      this.budgets.buckets.set(key, next);
      this.budgets.dirty.add(key);
      this.writes.alongside('provider budgets', () => this.persist());
    }
    return take;
  }

  /** The key's bucket as counted here; read from the file the first time. */
  private bucket(key: string): Bucket | undefined {
    const { buckets } = this.budgets;
    if (buckets.has(key)) return buckets.get(key);
    const row = this.q.get<BucketRow>(getBucket(key));
    const bucket: Bucket | undefined = row && {
      all: row.tokens ?? undefined,
      reads: row.read_tokens ?? undefined,
      at: row.counted_at,
      pausedUntil: row.paused_until,
    };
    buckets.set(key, bucket);
    return bucket;
  }

  /** Writes what was counted since the last time, inside a group commit. */
  private persist(): void {
    const { buckets, dirty } = this.budgets;
    for (const key of dirty) {
      const b = buckets.get(key);
      if (b) this.q.run(putBucket(key, b));
    }
    dirty.clear();
  }
}
