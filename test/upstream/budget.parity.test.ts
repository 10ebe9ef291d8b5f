import type { Pool } from 'pg';
import { postgresPool } from '../../src/database/postgres.open';
import { POSTGRES_NOW_MS } from '../../src/database/postgres.migrations';
import { migratePostgres } from '../../src/database/schema.migrate';
import { Bucket, takeFrom } from '../../src/upstream/budget.bucket';
import { PostgresBudgetLedger } from '../../src/upstream/postgres.budget';
import { describePostgres, FreshDatabase, freshDatabase } from '../support/postgres';

/** A bucket as a case states it: what is left (null: full), how long ago it was counted, and a pause relative to now. */
interface State {
  tokens: number | null;
  reads: number | null;
  agoMs: number;
  pausedInMs?: number;
}

/**
 * The rule is written twice, on purpose: budget.bucket.ts for the embedded file and
 * `provider_budget_take` for PostgreSQL, where the take is one call under the row's lock. These
 * cases hold the two to one answer. The server's clock runs on between seeding and taking, so a
 * wait may come out a few ms shorter and a count a little fuller; no case sits on a boundary.
 */
const CASES: [string, State, number, boolean][] = [
  ['a new bucket, a create', { tokens: null, reads: null, agoMs: 0 }, 10, false],
  ['a new bucket, a read', { tokens: null, reads: null, agoMs: 0 }, 10, true],
  ['an empty bucket, a create', { tokens: 0, reads: 5, agoMs: 0 }, 10, false],
  ['half a token refilled past one', { tokens: 0.5, reads: 0.5, agoMs: 1000 }, 60, false],
  ['an empty bucket refilled for 30 s', { tokens: 0, reads: 5, agoMs: 30_000 }, 10, false],
  ["a read with the reads' half spent", { tokens: 10, reads: 0, agoMs: 0 }, 20, true],
  ['a read with both spent waits for the later', { tokens: 0, reads: 0, agoMs: 0 }, 20, true],
  ['a fraction of a token left', { tokens: 0.2, reads: null, agoMs: 0 }, 30, false],
  ['refill never past the bucket', { tokens: 5, reads: 2, agoMs: 600_000 }, 10, true],
  ['a pause holds whatever is left', { tokens: null, reads: null, agoMs: 0, pausedInMs: 30_000 }, 100, false],
  ['a pause that ended', { tokens: 0, reads: 0, agoMs: 0, pausedInMs: -1000 }, 10, false],
  ['no budget takes without counting', { tokens: 0, reads: 0, agoMs: 0 }, 0, true],
];

describePostgres('provider_budget_take decides as takeFrom does', () => {
  let database: FreshDatabase;
  let pool: Pool;
  beforeAll(async () => {
    database = await freshDatabase();
    pool = postgresPool(database.url);
    await migratePostgres(pool);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it.each(CASES)('%s', async (name, state, perMinute, read) => {
    const { rows } = await pool.query<{ now: string }>(`SELECT ${POSTGRES_NOW_MS} AS now`);
    const now = Number(rows[0].now);
    const bucket: Bucket = {
      all: state.tokens ?? undefined,
      reads: state.reads ?? undefined,
      at: now - state.agoMs,
      pausedUntil: state.pausedInMs === undefined ? 0 : now + state.pausedInMs,
    };
    await pool.query(
      'INSERT INTO provider_budgets (key, tokens, read_tokens, counted_at, paused_until) VALUES ($1, $2, $3, $4, $5)',
      [name, state.tokens, state.reads, bucket.at, bucket.pausedUntil],
    );
    const expected = takeFrom(bucket, perMinute, read, now);
    const take = await new PostgresBudgetLedger(pool).take(name, perMinute, read);
    if (expected.take.taken) expect(take).toEqual({ taken: true });
    else {
      expect(take).toMatchObject({ taken: false, paused: expected.take.paused });
      const waitMs = take.taken ? 0 : take.waitMs;
      expect(waitMs).toBeLessThanOrEqual(expected.take.waitMs);
      expect(waitMs).toBeGreaterThan(expected.take.waitMs - 250);
    }
    const stored = await pool.query<{ tokens: number | null; read_tokens: number | null }>(
      'SELECT tokens, read_tokens FROM provider_budgets WHERE key = $1',
      [name],
    );
    const left = expected.next ?? { all: state.tokens ?? undefined, reads: state.reads ?? undefined };
    for (const [got, want] of [
      [stored.rows[0].tokens, left.all],
      [stored.rows[0].read_tokens, left.reads],
    ] as const) {
      if (want === undefined) expect(got).toBeNull();
      else {
        // Time only refills: PostgreSQL's count is the expected one or a little fuller.
        expect(got).toBeGreaterThanOrEqual(want - 1e-9);
        expect(got).toBeLessThan(want + 0.2);
      }
    }
  });
});
