import Database from 'better-sqlite3';
import { Client } from 'pg';

/** Where a seed goes: a gateway's DATABASE_URL (`sqlite:<path>` or `postgres://…`). */
export interface SeedTarget {
  databaseUrl: string;
  merchantId: string;
  /** How many payouts. */
  count: number;
  /** The first one's created_at (ms); each next one is a millisecond later. */
  from: number;
}

/**
 * A final (SUCCESSFUL) payout's record as JSON, built in SQL from its number `n`: what the gateway
 * would have stored for `seed-<n>`, so exports, statements and history read it like any other;
 * `text(n)` is the number as text in the engine's SQL.
 */
const recordJson = (merchant: string, text: (n: string) => string) =>
  `'{"merchantId":"${merchant}","referenceId":"seed-' || ${text('n')} || '","channel":"MOBILE_MONEY",` +
  `"sending":false,"status":"SUCCESSFUL","paymentType":"OPERATOR_A_MONEY","amount":"10.50","currency":"ZMW",` +
  `"accountNumber":"260971234567","identifier":"MM-' || ${text('n')} || '","updatedAt":"2026-01-01T00:00:00.000Z",` +
  `"version":2,"history":[],"deliveryIds":[],"checkAttempts":0}'`;

/**
 * Inserts `count` payouts behind the gateway's back, in one SQL statement in one transaction: a
 * large table in about a second, where as many API calls would take minutes. For tests and
 * measurements of long reads (no jest here: the measuring script uses it too); the merchant id is
 * used as is (a test's own, never user input).
 */
export async function seedPayouts({ databaseUrl, merchantId, count, from }: SeedTarget): Promise<void> {
  const columns = `merchant_id, reference_id, created_at, written_at, status, channel, currency, amount_minor, final,
    due_at, revision, record`;
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    try {
      db.prepare(
        `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
        INSERT INTO payouts (${columns})
        SELECT ?, 'seed-' || n, ? + n - 1, ? + n - 1, 'SUCCESSFUL', 'MOBILE_MONEY', 'ZMW', 1050, 1, NULL, 1,
          ${recordJson(merchantId, (n) => `CAST(${n} AS TEXT)`)} FROM seq`,
      ).run(count, merchantId, from, from);
    } finally {
      db.close();
    }
    return;
  }
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO payouts (${columns})
      SELECT $1, 'seed-' || n, $2::bigint + n - 1, $2::bigint + n - 1, 'SUCCESSFUL', 'MOBILE_MONEY', 'ZMW', 1050, 1,
        NULL, 1, ${recordJson(merchantId, (n) => `${n}::text`)} FROM generate_series(1, $3::int) AS n`,
      [merchantId, from, count],
    );
  } finally {
    await client.end();
  }
}
