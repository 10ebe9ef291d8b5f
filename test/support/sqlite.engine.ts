import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientRateLimit } from '../../src/auth/client.rate-limit';
import { enqueueOne } from '../../src/database/relay-jobs.statements';
import { sqliteRunner } from '../../src/database/sqlite.prepared';
import { migrateSqlite } from '../../src/database/schema.migrate';
import { openSqlite } from '../../src/database/sqlite.open';
import { PubSubEvents } from '../../src/events/pubsub.events';
import { SqliteRelayQueue } from '../../src/relay/sqlite.relay-queue';
import { SqliteReconciliations } from '../../src/store/sqlite.reconciliations';
import { sqliteStore } from '../../src/store/sqlite.engine';
import { SqliteBudgetLedger } from '../../src/upstream/sqlite.budget';
import { TEST_ENTRY_KEY } from './chain-key';
import { Engine, InsiderSql, TestDatabase } from './engine.types';

/** An embedded database file of a test's own, in a new temporary folder; `remove` deletes the folder. */
export function sqliteFile(): { url: string; path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-'));
  const path = join(dir, 'gateway.sqlite');
  return { url: `sqlite:${path}`, path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const pathOf = (url: string) => url.slice('sqlite:'.length);

/** An embedded file in a new temporary folder, removed with it. */
async function openSqliteDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-'));
  const handle = openSqlite(join(dir, 'gateway.sqlite'));
  const events = new PubSubEvents();
  return {
    store: (settings) =>
      sqliteStore({
        file: handle,
        entryKey: TEST_ENTRY_KEY,
        onChange: (r) => void events.publish(r),
        ...settings,
      }),
    events: () => events,
    relayQueue: () => new SqliteRelayQueue(handle),
    queueRelay: (job, at) =>
      handle.writes.write(() => {
        sqliteRunner(handle.db).run(enqueueOne(at.getTime(), JSON.stringify(job), job.merchantId, job.referenceId));
      }),
    budget: () => new SqliteBudgetLedger(handle),
    rateLimit: (perMinute) => ClientRateLimit.inMemory(perMinute),
    runs: () => new SqliteReconciliations(handle),
    bytes: async () => {
      handle.db.pragma('wal_checkpoint(TRUNCATE)');
      const pages = handle.db.pragma('page_count', { simple: true }) as number;
      return pages * (handle.db.pragma('page_size', { simple: true }) as number);
    },
    migrate: async () => migrateSqlite(handle.db),
    exec: async (sql) => void handle.db.exec(sql),
    rows: async (sql) => handle.db.prepare(sql).all() as Record<string, unknown>[],
    close: async () => {
      handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The embedded file: one process, always there to test. */
/** The guard triggers dropped for the length of `use`, and put back after. */
async function asInsider(url: string, use: (sql: InsiderSql) => Promise<void>): Promise<void> {
  const db = new Database(pathOf(url));
  try {
    const guards = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE 'audit_%'")
      .all() as { name: string; sql: string }[];
    for (const guard of guards) db.exec(`DROP TRIGGER ${guard.name}`);
    await use({
      all: async <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
      run: async (sql, ...params) => void db.prepare(sql).run(...params),
    });
    for (const guard of guards) db.exec(guard.sql);
  } finally {
    db.close();
  }
}

export const SQLITE: Engine = {
  name: 'SQLite',
  capabilities: [],
  describe,
  open: openSqliteDatabase,
  gatewayDatabase: async () => {
    const file = sqliteFile();
    return { env: { DATABASE_URL: file.url }, drop: async () => file.remove() };
  },
  serves: (url) => url.startsWith('sqlite:'),
  asInsider,
  copy: async (url) => {
    const path = `${pathOf(url)}.${randomUUID().replaceAll('-', '')}`;
    copyFileSync(pathOf(url), path);
    return { url: `sqlite:${path}`, remove: async () => rmSync(path, { force: true }) };
  },
};
