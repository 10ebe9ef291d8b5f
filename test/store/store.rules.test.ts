import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { auditEvent, AuditAction, keyed } from '../../src/disbursements/audit.entry';
import { compile, preparedName, sql } from '../../src/database/sql.dialect';
import { openSqlite } from '../../src/database/sqlite.open';
import { waitingWork } from '../../src/store/shared.statements';
import { sqlFor } from '../../src/store/store.read';
import { payoutColumns } from '../../src/store/payout.row';
import {
  appendStatement,
  claimStatement,
  eraseStatement,
  rewriteStatement,
  Statement,
} from '../../src/store/postgres.statements';
import { postgresBook } from '../../src/store/postgres.beneficiaries';
import { BookWrite } from '../../src/store/beneficiary.write';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { record } from './store.fixtures';

/**
 * Rules of the store the code enforces, checked over every variant: each prepared statement's name
 * stands for one text; an audited PostgreSQL statement always selects the column that makes its
 * append run; and the merchants' head rows are written only by the code that owns them.
 */
const merchantId = 'm-rules';
const payout = record({ merchantId, reservation: { day: '2026-12-07', currency: 'ZMW', actorId: 'a', minor: 100 } });
const columns = payoutColumns(payout, 1);
const entries = [keyed(merchantId, auditEvent(AuditAction.EXPORTED, '2026-12-07T00:00:00.000Z', {}), TEST_ENTRY_KEY)];
const at = { merchantId, referenceId: payout.referenceId, revision: '3' };
const held = payout.reservation!;
const job = {
  merchantId,
  referenceId: payout.referenceId,
  url: 'https://client.example/hook',
  webhookId: 'w',
  body: '{}',
};
const flags = (n: number) =>
  Array.from({ length: 2 ** n }, (_, i) => Array.from({ length: n }, (_, b) => (i & (1 << b)) !== 0));

/** Every statement a payout write step, an audit append or a book write can be, on PostgreSQL. */
function everyVariant(): Statement[] {
  const statements: Statement[] = [];
  for (const [hold, logged, audited] of flags(3))
    statements.push(
      claimStatement({
        record: payout,
        columns,
        hold: hold ? { held, caps: { dailyMinor: 1000 } } : undefined,
        logged,
        audit: audited ? entries : [],
      }),
    );
  for (const [release, logged, relay, audited, written] of flags(5))
    statements.push(
      rewriteStatement({
        at: { ...at, written: written ? columns.record : undefined },
        record: payout,
        columns,
        release: release ? held : undefined,
        logged,
        relay: relay ? job : undefined,
        audit: audited ? entries : [],
      }),
    );
  for (const [release, audited] of flags(2))
    statements.push(eraseStatement({ at, release: release ? held : undefined, audit: audited ? entries : [] }));
  statements.push(appendStatement(merchantId, entries));
  return statements;
}

/** The book's statements as its engine sends them, caught on their way. */
async function everyBookVariant(): Promise<Statement[]> {
  const sent: Statement[] = [];
  const book = postgresBook(async (name, statement) => {
    sent.push({ name: name ?? '', sql: statement });
    return [{ done: 1, duplicate: null }] as never[];
  });
  for (const shape of ['insert', 'update', 'archive'] as const)
    for (const [duplicate, audited] of flags(2)) {
      const step: BookWrite = {
        merchantId,
        shape,
        write: sql`UPDATE beneficiaries SET record = ${'{}'} WHERE id = ${'b'} RETURNING id`,
        duplicate: duplicate ? sql`SELECT record FROM beneficiaries WHERE id = ${'c'}` : undefined,
        audit: audited ? entries : [],
      };
      await book.write(step);
    }
  return sent;
}

describe('the store’s rules, over every variant', () => {
  it('each prepared statement name stands for one text', async () => {
    const texts = new Map<string, Set<string>>();
    for (const { name, sql: statement } of [...everyVariant(), ...(await everyBookVariant())]) {
      const { text } = compile(statement, 'postgres');
      const prepared = preparedName(name, text);
      expect(prepared.length).toBeLessThanOrEqual(63);
      texts.set(prepared, (texts.get(prepared) ?? new Set()).add(text));
    }
    expect(texts.size).toBeGreaterThan(40);
    for (const [name, seen] of texts) expect([name, seen.size]).toEqual([name, 1]);
  });

  it('an audited statement selects the column that makes its append run, and only an audited one does', async () => {
    for (const { sql: statement } of [...everyVariant(), ...(await everyBookVariant())]) {
      const { text } = compile(statement, 'postgres');
      const appends = text.includes('audit_append(');
      expect([appends, /FROM audited\)::int AS appended/.test(text)]).toEqual([appends, appends]);
    }
  });

  it('counts the waiting work for /metrics from ranges of the due indexes, never a scan of every payout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-plans-'));
    const file = openSqlite(join(dir, 'gateway.sqlite'));
    try {
      const plans = waitingWork(Date.now(), ['m']).statements.map(({ sql: statement }) => {
        const { text, values } = compile(sqlFor(statement, 'sqlite'), 'sqlite');
        const rows = file.db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...values) as { detail: string }[];
        return rows.map((r) => r.detail).join('; ');
      });
      expect(plans[0]).toMatch(/USING INDEX payouts_due_kind \(due_kind=/);
      expect(plans[1]).toMatch(/USING INDEX payouts_due_kind \(due_kind=/);
      expect(plans[2]).toMatch(/USING INDEX payouts_due \(due_at/);
      for (const plan of plans) expect(plan).not.toMatch(/SCAN payouts(?! USING)/);
    } finally {
      file.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes merchant_heads only where it is owned: the embedded file’s heads and PostgreSQL’s triggers', () => {
    const root = join(__dirname, '..', '..', 'src');
    const owners = ['store/sqlite.heads.ts', 'database/postgres.migrations.ts', 'database/schema.migrations.ts'];
    const writers: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (
          /(INSERT\s+INTO|UPDATE|DELETE\s+FROM|ALTER\s+TABLE)\s+merchant_heads\b/i.test(readFileSync(path, 'utf8'))
        )
          writers.push(relative(root, path));
      }
    };
    walk(root);
    expect(writers.sort()).toEqual(owners.sort());
  });
});
