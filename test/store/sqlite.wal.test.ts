import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, SqliteHandle, WAL_LIMIT_BYTES } from '../../src/database/sqlite.open';

describe("the embedded file's WAL", () => {
  let dir: string;
  let path: string;
  let handle: SqliteHandle;
  let reader: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-wal-'));
    path = join(dir, 'gateway.sqlite');
    handle = openSqlite(path);
    handle.db.exec('CREATE TABLE filler (body BLOB)');
    reader = new Database(path, { readonly: true });
  });
  afterEach(() => {
    reader.close();
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const walBytes = () => statSync(`${path}-wal`).size;
  /** Twice the limit's worth of writes, each its own transaction as the gateway's are. */
  const writeTwiceTheLimit = () => {
    const insert = handle.db.prepare('INSERT INTO filler (body) VALUES (randomblob(16384))');
    for (let written = 0; written < 2 * WAL_LIMIT_BYTES; written += 16384) insert.run();
  };

  it('grows while an outside reader holds a snapshot, and shrinks back to its limit once the reader lets go', () => {
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM filler').get();
    writeTwiceTheLimit();
    expect(walBytes()).toBeGreaterThan(WAL_LIMIT_BYTES);
    // What the timer runs: with the reader still there it cannot shrink the WAL, and does not wait for it.
    handle.checkpoint();
    expect(walBytes()).toBeGreaterThan(WAL_LIMIT_BYTES);

    reader.exec('COMMIT');
    handle.checkpoint();
    expect(walBytes()).toBeLessThanOrEqual(WAL_LIMIT_BYTES);
    expect(handle.db.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({
      n: Math.ceil((2 * WAL_LIMIT_BYTES) / 16384),
    });
  });
});
