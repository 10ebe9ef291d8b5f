import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, SqliteHandle, WritesStoppedError } from '../../src/database/sqlite.open';
import { WAL_LIMIT_BYTES } from '../../src/database/sqlite.wal';

describe("the embedded file's WAL", () => {
  let dir: string;
  let path: string;
  let handle: SqliteHandle;
  let reader: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-wal-'));
    path = join(dir, 'gateway.sqlite');
    // Writes stop past five times the limit here (64 MiB in the gateway), so the test writes little.
    handle = openSqlite(path, { walStopBytes: 5 * WAL_LIMIT_BYTES });
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

  it('a reader that pins it past its bound stops writes, named by problem(), until it lets go: the disk does not fill', async () => {
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM filler').get();
    writeTwiceTheLimit();
    handle.checkpoint();
    // Past the limit but under the bound: still written.
    expect(handle.problem()).toBeUndefined();
    await handle.writes.write(() => handle.db.prepare('INSERT INTO filler (body) VALUES (randomblob(16))').run());
    writeTwiceTheLimit();
    handle.checkpoint();
    expect(handle.problem()).toContain('a reader holds an old snapshot');
    const grown = walBytes();
    await expect(
      handle.writes.write(() => handle.db.prepare('INSERT INTO filler (body) VALUES (randomblob(16384))').run()),
    ).rejects.toBeInstanceOf(WritesStoppedError);
    expect(walBytes()).toBe(grown);

    reader.exec('COMMIT');
    handle.checkpoint();
    expect(handle.problem()).toBeUndefined();
    expect(walBytes()).toBeLessThanOrEqual(WAL_LIMIT_BYTES);
    await handle.writes.write(() => handle.db.prepare('INSERT INTO filler (body) VALUES (randomblob(16))').run());
  });

  it('the first write after the pinning reader lets go empties the WAL and goes through, with no checkpoint in between', async () => {
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM filler').get();
    for (let i = 0; i < 3; i += 1) writeTwiceTheLimit();
    const insert = () =>
      handle.writes.write(() => handle.db.prepare('INSERT INTO filler (body) VALUES (randomblob(16))').run());
    // Checked before the group itself, not a timer's second later.
    await expect(insert()).rejects.toBeInstanceOf(WritesStoppedError);
    expect(handle.problem()).toContain('a reader holds an old snapshot');

    reader.exec('COMMIT');
    await insert();
    expect(handle.problem()).toBeUndefined();
    expect(walBytes()).toBeLessThanOrEqual(WAL_LIMIT_BYTES);
  });
});
