import type { Pool } from 'pg';
import { postgresPool } from '../../src/database/postgres.open';
import { migratePostgres } from '../../src/database/schema.migrate';
import { dailyLimitRefusal, DayHeld } from '../../src/disbursements/daily-limit.refusal';
import { ReservationCaps } from '../../src/disbursements/payout.controls';
import { describePostgres, FreshDatabase, freshDatabase } from '../support/postgres';

/**
 * The daily-limit rule is written twice, on purpose: daily-limit.refusal.ts, which the embedded file
 * calls between reading its counters and writing the hold, and `payout_reserve`, which PostgreSQL
 * runs under the counters' row locks in the claim's one statement. These cases hold the two to one
 * answer: the same refusal (or none), and the counters moved by the amount exactly when it is taken.
 */
const CASES: [string, DayHeld, number, ReservationCaps][] = [
  ['no caps', { merchant: 500, actor: 200 }, 100, {}],
  ['under both caps', { merchant: 500, actor: 200 }, 100, { dailyMinor: 1000, userMinor: 400 }],
  ['exactly at the merchant cap', { merchant: 900, actor: 0 }, 100, { dailyMinor: 1000 }],
  ['one past the merchant cap', { merchant: 901, actor: 0 }, 100, { dailyMinor: 1000 }],
  ['exactly at the person’s cap', { merchant: 0, actor: 300 }, 100, { userMinor: 400 }],
  ['one past the person’s cap', { merchant: 0, actor: 301 }, 100, { userMinor: 400 }],
  ['past both: the merchant’s refuses', { merchant: 1000, actor: 400 }, 1, { dailyMinor: 1000, userMinor: 400 }],
  ['a first payout larger than the cap', { merchant: 0, actor: 0 }, 5000, { dailyMinor: 1000, userMinor: 4000 }],
  ['a zero cap', { merchant: 0, actor: 0 }, 1, { dailyMinor: 0 }],
  ['nothing held yet', { merchant: 0, actor: 0 }, 999, { dailyMinor: 1000, userMinor: 1000 }],
];

describePostgres('payout_reserve decides as dailyLimitRefusal does', () => {
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

  it.each(CASES)('%s', async (name, held, minor, caps) => {
    const day = '2026-12-07';
    const seed =
      'INSERT INTO daily_reservations (merchant_id, day, currency, actor_id, minor) VALUES ($1, $2, $3, $4, $5)';
    await pool.query(seed, [name, day, 'ZMW', '', held.merchant]);
    await pool.query(seed, [name, day, 'ZMW', 'alice', held.actor]);
    const { rows } = await pool.query<{ reserved: boolean; merchant_minor: string; actor_minor: string }>(
      'SELECT reserved, merchant_minor, actor_minor FROM payout_reserve($1, $2, $3, $4, $5, $6, $7, $8)',
      [name, `ref-${name}`, day, 'ZMW', 'alice', minor, caps.dailyMinor ?? null, caps.userMinor ?? null],
    );
    const refusal = dailyLimitRefusal(caps, held, minor);
    expect(rows[0].reserved).toBe(refusal === undefined);
    // What it answers is what was held before: the TypeScript rule computes the refusal from it.
    expect({ merchant: Number(rows[0].merchant_minor), actor: Number(rows[0].actor_minor) }).toEqual(held);
    const after = await pool.query<{ actor_id: string; minor: string }>(
      'SELECT actor_id, minor FROM daily_reservations WHERE merchant_id = $1 ORDER BY actor_id',
      [name],
    );
    const taken = refusal === undefined ? minor : 0;
    expect(after.rows.map((r) => [r.actor_id, Number(r.minor)])).toEqual([
      ['', held.merchant + taken],
      ['alice', held.actor + taken],
    ]);
  });
});
