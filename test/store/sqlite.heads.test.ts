import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditDraft, AuditEntry } from '../../src/disbursements/audit.entry';
import { verifyChain } from '../../src/disbursements/audit.verify';
import { openSqlite, SqliteHandle } from '../../src/database/sqlite.open';
import { sqliteStore } from '../../src/store/sqlite.engine';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { shownRecord } from './store.fixtures';
import { PayoutStore } from '../../src/store/payout.store';

/**
 * The embedded file keeps each merchant's head row (change-log position, audit sequence and hash) in
 * memory as it last wrote it, so a write appends without reading it (sqlite.heads.ts). A new way an
 * entry could be lost in that design: a write whose head moved in memory and was then rolled back,
 * alone or with its whole group. Each row here makes the file refuse the second entry one way, then
 * writes a third: it must take the refused entry's place (sequence 2), the chain and the change log
 * whole, as they would be had the refused write never been asked for.
 */
describe('the embedded file after a write it rolled back: no gap, no repeat in the chain or the change log', () => {
  let dir: string;
  let file: SqliteHandle;
  let store: PayoutStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-heads-'));
    file = openSqlite(join(dir, 'gateway.sqlite'));
    store = sqliteStore({ file, entryKey: TEST_ENTRY_KEY });
  });
  afterEach(() => {
    file.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const entry = (detail: string): AuditDraft => ({
    at: new Date(Date.UTC(2026, 10, 29)).toISOString(),
    actor: 'alice',
    action: 'EXPORTED',
    referenceId: null,
    status: null,
    amount: null,
    currency: null,
    detail,
  });

  async function chain(): Promise<AuditEntry[]> {
    return (await store.auditPage('merchant-1', { limit: 100, filter: {} })).entries;
  }

  async function* listed(entries: AuditEntry[]): AsyncGenerator<AuditEntry> {
    yield* entries;
  }

  const refusals = [
    {
      name: 'a statement of the write refused (its savepoint rolled back alone)',
      refuse: `CREATE TRIGGER refuse_second BEFORE INSERT ON audit_log WHEN NEW.detail = 'second'
        BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      lift: 'DROP TRIGGER refuse_second',
    },
    {
      name: 'the COMMIT of its group refused (every write of the group rolled back)',
      // A deferred foreign key is checked at COMMIT: the group's transaction fails there, whole.
      refuse: `PRAGMA foreign_keys = ON;
        CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
        CREATE TABLE test_child (parent INTEGER REFERENCES test_parent (id) DEFERRABLE INITIALLY DEFERRED);
        CREATE TRIGGER refuse_second AFTER INSERT ON audit_log WHEN NEW.detail = 'second'
        BEGIN INSERT INTO test_child (parent) VALUES (42); END`,
      lift: 'DROP TRIGGER refuse_second; DROP TABLE test_child; DROP TABLE test_parent',
    },
  ];

  it.each(refusals)('$name', async ({ refuse, lift }) => {
    await store.appendAudit('merchant-1', [entry('first')]);
    file.db.exec(refuse);
    await expect(store.appendAudit('merchant-1', [entry('second')])).rejects.toThrow();
    file.db.exec(lift);
    await store.appendAudit('merchant-1', [entry('third')]);

    const entries = await chain();
    expect(entries.map((e) => [e.sequence, e.detail])).toEqual([
      [1, 'first'],
      [2, 'third'],
    ]);
    expect(await verifyChain(listed(entries))).toEqual({ count: 2 });
    expect(await store.auditHead('merchant-1')).toEqual({ sequence: 2, hash: entries[1].hash });
  });

  it.each(refusals)('the change log after $name', async ({ refuse, lift }) => {
    const [first, second, third] = [shownRecord(), shownRecord(), shownRecord()];
    await store.insertIfAbsent(first, [entry('first')]);
    file.db.exec(refuse);
    await expect(store.insertIfAbsent(second, [entry('second')])).rejects.toThrow();
    file.db.exec(lift);
    await store.insertIfAbsent(third, [entry('third')]);

    const changes = await store.changesAfter('merchant-1', '0', 10);
    expect(changes.map((c) => [c.position, c.record.referenceId])).toEqual([
      ['1', first.referenceId],
      ['2', third.referenceId],
    ]);
    expect(await store.get('merchant-1', second.referenceId)).toBeUndefined();
    expect((await chain()).map((e) => e.sequence)).toEqual([1, 2]);
  });
});
