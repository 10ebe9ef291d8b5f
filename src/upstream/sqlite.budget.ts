import { SqliteFile } from '../database/sqlite.open';
import { Bucket, takeFrom } from './budget.bucket';
import { BUCKET, claim, pause, PUT_BUCKET, sweep } from './budget.statements';
import { BudgetLedger, Take } from './provider.budget';

interface Row {
  tokens: number | null;
  read_tokens: number | null;
  counted_at: number;
  paused_until: number;
}

/** Claims made before expired ones are swept. */
const SWEEP_EVERY = 1000;

/** Provider budgets in the embedded file: one process, so a take is one synchronous read and write (in the file's group commit). */
export class SqliteBudgetLedger implements BudgetLedger {
  private readonly q;
  private claims = 0;
  private readonly writes: SqliteFile['writes'];

  constructor(
    { db, writes }: SqliteFile,
    private readonly now: () => number = Date.now,
  ) {
    this.writes = writes;
    this.q = {
      get: db.prepare(BUCKET),
      put: db.prepare(PUT_BUCKET),
      pause: db.prepare(pause('sqlite')),
      claim: db.prepare(claim('sqlite')),
      sweep: db.prepare(sweep('sqlite')),
    };
  }

  async take(key: string, perMinute: number, read: boolean): Promise<Take> {
    return this.writes.write(() => this.takeNow(key, perMinute, read));
  }

  async takePair(key: string, perMinute: number): Promise<{ first: Take; second: boolean }> {
    return this.writes.write(() => {
      const first = this.takeNow(key, perMinute, false);
      return { first, second: first.taken && this.takeNow(key, perMinute, false).taken };
    });
  }

  async pause(key: string, ms: number): Promise<void> {
    return this.writes.write(() => {
      const now = this.now();
      this.q.pause.run(key, now, now, ms);
    });
  }

  async claim(key: string, ms: number): Promise<boolean> {
    return this.writes.write(() => {
      const now = this.now();
      this.claims += 1;
      if (this.claims % SWEEP_EVERY === 0) this.q.sweep.run(now);
      return this.q.claim.run(key, now, ms, now).changes === 1;
    });
  }

  async close(): Promise<void> {}

  private takeNow(key: string, perMinute: number, read: boolean): Take {
    const now = this.now();
    const row = this.q.get.get(key) as Row | undefined;
    const bucket: Bucket | undefined = row && {
      all: row.tokens ?? undefined,
      reads: row.read_tokens ?? undefined,
      at: row.counted_at,
      pausedUntil: row.paused_until,
    };
    const { take, next } = takeFrom(bucket, perMinute, read, now);
    if (next) this.q.put.run(key, next.all ?? null, next.reads ?? null, next.at, next.pausedUntil);
    return take;
  }
}
