import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditEvent, AuditAction } from '../../src/disbursements/audit.entry';
import { verifyChain } from '../../src/disbursements/audit.verify';
import { openSqlite, SqliteHandle } from '../../src/database/sqlite.open';
import { PayoutStore } from '../../src/store/payout.store';
import { sqliteStore } from '../../src/store/sqlite.engine';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { shownRecord } from './store.fixtures';

/**
 * Issue 56: on the embedded file a merchant's head row is written once per group commit, however many
 * of the group's writes moved it, and the chain and change log stay whole.
 */
describe('the embedded file writes each merchant’s head row once per group', () => {
  let dir: string;
  let file: SqliteHandle;
  let store: PayoutStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-heads-once-'));
    file = openSqlite(join(dir, 'gateway.sqlite'));
    store = sqliteStore({ file, entryKey: TEST_ENTRY_KEY });
    // Counts every write of a head row, as the file sees it.
    file.db.exec(`CREATE TABLE test_head_writes (merchant_id TEXT);
      CREATE TRIGGER test_head_inserted AFTER INSERT ON merchant_heads BEGIN INSERT INTO test_head_writes VALUES (NEW.merchant_id); END;
      CREATE TRIGGER test_head_updated AFTER UPDATE ON merchant_heads BEGIN INSERT INTO test_head_writes VALUES (NEW.merchant_id); END;`);
  });
  afterEach(() => {
    file.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const headWrites = () =>
    file.db.prepare('SELECT merchant_id, count(*) AS n FROM test_head_writes GROUP BY merchant_id ORDER BY 1').all();

  it('twenty writes of two merchants in one turn: one group, two head rows written', async () => {
    const event = (n: number) =>
      auditEvent(AuditAction.EXPORTED, new Date(Date.UTC(2026, 11, 7)).toISOString(), { detail: `${n}` });
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        n % 2 === 0
          ? store.insertIfAbsent(shownRecord({ merchantId: 'merchant-1' }), [event(n)])
          : store.appendAudit('merchant-2', [event(n)]),
      ),
    );
    expect(headWrites()).toEqual([
      { merchant_id: 'merchant-1', n: 1 },
      { merchant_id: 'merchant-2', n: 1 },
    ]);
    for (const merchantId of ['merchant-1', 'merchant-2']) {
      const { entries } = await store.auditPage(merchantId, { limit: 100, filter: {} });
      expect(entries.map((e) => e.sequence)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
      async function* listed() {
        yield* entries;
      }
      expect(await verifyChain(listed())).toEqual({ count: 10 });
      expect(await store.auditHead(merchantId)).toEqual({ sequence: 10, hash: entries[9].hash });
    }
    const changes = await store.changesAfter('merchant-1', '0', 100);
    expect(changes.map((c) => c.position)).toEqual(Array.from({ length: 10 }, (_, i) => String(i + 1)));
  });
});
