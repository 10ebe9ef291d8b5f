import Database from 'better-sqlite3';
import { postgresPool } from '../../src/database/postgres.open';
import { migratePostgres, migrateSqlite } from '../../src/database/schema.migrate';
import { MIGRATIONS } from '../../src/database/schema.migrations';
import { freshDatabase, withClient } from '../support/postgres';
import { POSTGRES } from '../support/postgres.engine';
import { SQLITE, sqliteFile } from '../support/sqlite.engine';

/**
 * Payouts stored before the due loop's kinds had their next check in `nextCheckAt` (the record) and
 * `next_check_at` (the column), one time for four meanings. The upgrade gives each open payout the
 * kind its status meant, keeps the time, and leaves settled ones with nothing due.
 */
const BEFORE = MIGRATIONS.filter((m) => m.version < 8);
const FROM_8 = MIGRATIONS.filter((m) => m.version >= 8).map((m) => m.version);
const AT = Date.parse('2026-11-28T10:00:00Z');
const OPEN: [string, string, number | null][] = [
  ['held', 'AWAITING_APPROVAL', AT],
  ['scheduled', 'SCHEDULED', AT + 1000],
  ['unknown', 'UNKNOWN', AT + 2000],
  ['pending', 'PENDING', AT + 3000],
  ['settled', 'SUCCESSFUL', null],
];
const EXPECTED = {
  held: { kind: 'APPROVAL_EXPIRY', at: new Date(AT).toISOString() },
  scheduled: { kind: 'SEND', at: new Date(AT + 1000).toISOString() },
  unknown: { kind: 'RECHECK', at: new Date(AT + 2000).toISOString() },
  pending: { kind: 'RECHECK', at: new Date(AT + 3000).toISOString() },
  settled: undefined,
};

const insert = (param: (i: number) => string) =>
  `INSERT INTO payouts (merchant_id, reference_id, created_at, written_at, status, channel, currency, amount_minor,
    final, next_check_at, revision, record) VALUES ('m', ${param(1)}, 0, 0, ${param(2)}, 'MOBILE_MONEY', 'ZMW', 100,
    0, ${param(3)}, 1, ${param(4)})`;
const recordOf = (ref: string, status: string, at: number | null) =>
  JSON.stringify({ referenceId: ref, status, ...(at !== null && { nextCheckAt: new Date(at).toISOString() }) });

type Row = { reference_id: string; due_kind: string | null; due_at: number | string | null; record: string };
function dues(rows: Row[]) {
  return Object.fromEntries(
    rows.map((r) => {
      const record = JSON.parse(r.record) as { due?: unknown; nextCheckAt?: unknown };
      expect(record.nextCheckAt).toBeUndefined();
      expect(r.due_kind ?? undefined).toBe((record.due as { kind?: string } | undefined)?.kind);
      return [r.reference_id, record.due];
    }),
  );
}
const SELECT = 'SELECT reference_id, due_kind, due_at, record FROM payouts ORDER BY reference_id';

SQLITE.describe('the upgrade to due kinds, on the embedded file', () => {
  it('gives each open payout the kind its status meant and keeps its time', () => {
    const file = sqliteFile();
    const db = new Database(file.path);
    try {
      migrateSqlite(db, BEFORE);
      const put = db.prepare(insert(() => '?'));
      for (const [ref, status, at] of OPEN) put.run(ref, status, at, recordOf(ref, status, at));
      expect(migrateSqlite(db)).toEqual(FROM_8);
      expect(dues(db.prepare(SELECT).all() as Row[])).toEqual(EXPECTED);
    } finally {
      db.close();
      file.remove();
    }
  });
});

POSTGRES.describe('the upgrade to due kinds, on PostgreSQL', () => {
  it('gives each open payout the kind its status meant and keeps its time', async () => {
    const database = await freshDatabase();
    const pool = postgresPool(database.url);
    try {
      await migratePostgres(pool, BEFORE);
      await withClient(database.url, async (client) => {
        for (const [ref, status, at] of OPEN)
          await client.query(
            insert((i) => `$${i}`),
            [ref, status, at, recordOf(ref, status, at)],
          );
      });
      expect(await migratePostgres(pool)).toEqual(FROM_8);
      expect(dues((await pool.query<Row>(SELECT)).rows)).toEqual(EXPECTED);
    } finally {
      await pool.end();
      await database.drop();
    }
  });
});
