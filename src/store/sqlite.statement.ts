import { sql } from '../database/sql.dialect';
import { StatementLine } from '../disbursements/disbursement.ports';
import { StatementRow } from './shared.statements';
import { read, Read } from './store.read';

/** Rows a statement sums per slice: a few milliseconds of the event loop each. */
const STATEMENT_SLICE = 5000;

type Keyset = [number, string];

/**
 * A statement's slice: where the slice after `after` ends (its STATEMENT_SLICE-th row from `start`), and
 * the sums of the rows in (after, until], whose created_at lie in [start, last] (the range SQLite seeks
 * the index on).
 */
const sliceEnd = (merchantId: string, start: number, to: number, after: Keyset) =>
  read(
    undefined,
    sql`SELECT created_at, reference_id FROM payouts
      WHERE merchant_id = ${merchantId} AND created_at >= ${start} AND created_at < ${to}
      AND (created_at, reference_id) > (${after[0]}, ${after[1]})
      ORDER BY created_at, reference_id LIMIT 1 OFFSET ${STATEMENT_SLICE - 1}`,
    ([end]: ({ created_at: number; reference_id: string } | undefined)[]) =>
      end && ([end.created_at, end.reference_id] as Keyset),
  );
const sliceSums = (merchantId: string, start: number, last: number, after: Keyset, until: Keyset) =>
  read(
    undefined,
    sql`SELECT currency, status, count(*) AS count, sum(amount_minor) AS minor FROM payouts
      WHERE merchant_id = ${merchantId} AND created_at BETWEEN ${start} AND ${last}
      AND (created_at, reference_id) > (${after[0]}, ${after[1]})
      AND (created_at, reference_id) <= (${until[0]}, ${until[1]}) GROUP BY currency, status`,
    (rows: StatementRow[]) => rows,
  );

/**
 * A statement on the embedded file, summed a slice of STATEMENT_SLICE rows at a time (keyset slices,
 * each its own statement, the event loop free between them, `page`): one statement over a large window
 * would hold the process for as long as it reads. A payout written while it runs is counted once,
 * with its status then.
 */
export async function sqliteStatement(
  merchantId: string,
  from: number,
  to: number,
  page: <T>(work: () => T) => Promise<T>,
  sync: <T>(reading: Read<T>) => T,
): Promise<StatementLine[]> {
  const lines = new Map<string, StatementLine>();
  let after: Keyset = [from - 1, ''];
  for (let done = false; !done;) {
    done = await page(() => {
      // Each slice's range starts where the last ended, as createdBetween's pages do.
      const start = Math.max(from, after[0]);
      const end = sync(sliceEnd(merchantId, start, to, after));
      // The last slice reaches the window's end: every row left is before (to, ''), at to - 1 ms at the latest.
      const until: Keyset = end ?? [to, ''];
      for (const r of sync(sliceSums(merchantId, start, end ? end[0] : to - 1, after, until))) {
        const key = `${r.currency}\n${r.status}`;
        const line = lines.get(key) ?? { currency: r.currency, status: r.status, count: 0, amountMinor: 0 };
        lines.set(key, {
          ...line,
          count: line.count + Number(r.count),
          amountMinor: line.amountMinor + Number(r.minor),
        });
      }
      after = until;
      return end === undefined;
    });
  }
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...lines.values()].sort((a, b) => byText(a.currency, b.currency) || byText(a.status, b.status));
}
