import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupCommit } from '../../src/database/sqlite.group-commit';
import { openSqlite, SqliteHandle } from '../../src/database/sqlite.open';
import { sqliteStore } from '../../src/store/sqlite.engine';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { shownRecord } from './store.fixtures';

/** A file with a writer (and its committer, whose commits are counted) and an outside reader. */
function openFile(limit?: number, lingerMs?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-group-'));
  const db = new Database(join(dir, 'group.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE item (value TEXT NOT NULL UNIQUE);
    CREATE TABLE child (item TEXT REFERENCES item (value) DEFERRABLE INITIALLY DEFERRED)`);
  const commits: number[] = [];
  const writes = new GroupCommit(db, { limit, lingerMs, onCommit: (held) => commits.push(held) });
  const reader = new Database(join(dir, 'group.sqlite'), { readonly: true });
  const values = (from: Database.Database = db) =>
    (from.prepare('SELECT value FROM item ORDER BY rowid').all() as { value: string }[]).map((r) => r.value);
  const insert = (value: string) => () => void db.prepare('INSERT INTO item (value) VALUES (?)').run(value);
  const close = () => {
    reader.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { db, writes, commits, reader, values, insert, close };
}

type File = ReturnType<typeof openFile>;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const settled = (promises: Promise<unknown>[]) =>
  Promise.allSettled(promises).then((all) => all.map((one) => (one.status === 'fulfilled' ? 'ok' : 'failed')));

describe('the group committer of a SQLite file', () => {
  let file: File;
  afterEach(() => file.close());

  it.each([
    {
      name: 'two writes asked for in one turn share one commit',
      writes: (f: File) => [f.writes.write(f.insert('a')), f.writes.write(f.insert('b'))],
      outcomes: ['ok', 'ok'],
      stored: ['a', 'b'],
      commits: [2],
    },
    {
      name: 'a write that throws is rolled back alone; the others commit',
      writes: (f: File) => [
        f.writes.write(f.insert('a')),
        f.writes.write(() => {
          f.insert('b')();
          throw new Error('refused');
        }),
        f.writes.write(f.insert('c')),
      ],
      outcomes: ['ok', 'failed', 'ok'],
      stored: ['a', 'c'],
      commits: [3],
    },
    {
      name: "a statement's own failure (a unique key) fails only its write",
      writes: (f: File) => [
        f.writes.write(f.insert('a')),
        f.writes.write(f.insert('a')),
        f.writes.write(f.insert('b')),
      ],
      outcomes: ['ok', 'failed', 'ok'],
      stored: ['a', 'b'],
      commits: [3],
    },
    {
      name: 'a COMMIT that fails (a deferred foreign key) fails every write of its group, none is kept',
      writes: (f: File) => [
        f.writes.write(f.insert('a')),
        f.writes.write(() => void f.db.prepare("INSERT INTO child (item) VALUES ('missing')").run()),
      ],
      outcomes: ['failed', 'failed'],
      stored: [],
      commits: [],
    },
    {
      name: 'SQLite ending the whole transaction fails the writes before it; those after it commit in the next group',
      writes: (f: File) => [
        f.writes.write(f.insert('a')),
        f.writes.write(() => {
          f.db.exec('ROLLBACK');
          throw new Error('the transaction is gone');
        }),
        f.writes.write(f.insert('c')),
      ],
      outcomes: ['failed', 'failed', 'ok'],
      stored: ['c'],
      commits: [1],
    },
    {
      name: 'a flood is committed in groups of the limit at most',
      limit: 3,
      writes: (f: File) => ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((v) => f.writes.write(f.insert(v))),
      outcomes: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
      stored: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
      commits: [3, 3, 1],
    },
  ])('$name', async ({ writes, outcomes, stored, commits, limit }) => {
    file = openFile(limit);
    expect(await settled(writes(file))).toEqual(outcomes);
    expect(file.values()).toEqual(stored);
    expect(file.commits).toEqual(commits);
    expect(file.db.inTransaction).toBe(false);
  });

  it('writes of different turns commit apart', async () => {
    file = openFile();
    await file.writes.write(file.insert('a'));
    await file.writes.write(file.insert('b'));
    expect(file.commits).toEqual([1, 1]);
  });

  it('answers in the order the writes were asked for, each after the COMMIT holding it', async () => {
    file = openFile();
    const answered: string[] = [];
    const seen: string[][] = [];
    const asked = ['a', 'b', 'c', 'd', 'e'].map((v) =>
      file.writes.write(file.insert(v)).then(() => {
        answered.push(v);
        // The outside reader sees the write committed by the time its caller hears of it.
        seen.push(file.values(file.reader));
      }),
    );
    // Nothing is written before the group runs.
    expect(file.values(file.reader)).toEqual([]);
    await Promise.all(asked);
    expect(answered).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(seen.every((values) => values.length === 5)).toBe(true);
    expect(file.values()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('the file can be written again after a failed COMMIT', async () => {
    file = openFile();
    await expect(
      file.writes.write(() => void file.db.prepare("INSERT INTO child (item) VALUES ('missing')").run()),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    await file.writes.write(file.insert('a'));
    expect(file.values()).toEqual(['a']);
  });

  it('runs work alongside the next group, the latest of a key, starting no group of its own', async () => {
    file = openFile();
    file.writes.alongside('k', file.insert('first'));
    file.writes.alongside('k', file.insert('latest'));
    await nextTurn();
    expect(file.values(file.reader)).toEqual([]);
    await file.writes.write(file.insert('a'));
    expect(file.values(file.reader)).toEqual(['a', 'latest']);
    expect(file.commits).toEqual([1]);
  });

  it('undoes alongside work that throws alone, keeping the group and dropping the work', async () => {
    file = openFile();
    file.writes.alongside('k', () => {
      file.insert('half')();
      throw new Error('broken');
    });
    await file.writes.write(file.insert('a'));
    await file.writes.write(file.insert('b'));
    expect(file.values(file.reader)).toEqual(['a', 'b']);
  });

  it('drain runs alongside work with no write asked for', async () => {
    file = openFile();
    file.writes.alongside('k', file.insert('kept'));
    file.writes.drain();
    expect(file.values(file.reader)).toEqual(['kept']);
  });

  // A linger far longer than the test's timeout: a write that waited for it would fail the test.
  it('commits a write that comes after a quiet spell in its own turn, without lingering', async () => {
    file = openFile(undefined, 60_000);
    await file.writes.write(file.insert('a'));
    expect(file.values(file.reader)).toEqual(['a']);
  });

  it('on a busy file, gathers the writes of the next turns into one commit', async () => {
    file = openFile(undefined, 500);
    await file.writes.write(file.insert('a'));
    // Just after a commit: the file is busy, so these wait for company instead of committing alone.
    const first = file.writes.write(file.insert('b'));
    await nextTurn();
    const second = file.writes.write(file.insert('c'));
    await Promise.all([first, second]);
    expect(file.commits).toEqual([1, 2]);
    expect(file.values(file.reader)).toEqual(['a', 'b', 'c']);
  });

  it('drain commits what was asked for before the file closes', async () => {
    file = openFile();
    const asked = file.writes.write(file.insert('a'));
    file.writes.drain();
    expect(file.values(file.reader)).toEqual(['a']);
    await asked;
    await nextTurn();
    expect(file.commits).toEqual([1]);
  });
});

describe("the embedded store's writes through the group committer", () => {
  let dir: string;
  let handle: SqliteHandle;
  let reader: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-group-store-'));
    handle = openSqlite(join(dir, 'gateway.sqlite'));
    reader = new Database(join(dir, 'gateway.sqlite'), { readonly: true });
  });
  afterEach(() => {
    reader.close();
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells of a logged change only once it is committed, in the order written', async () => {
    const told: { referenceId: string; stored: number }[] = [];
    const count = reader.prepare('SELECT count(*) AS n FROM payouts');
    const store = sqliteStore({
      file: handle,
      entryKey: TEST_ENTRY_KEY,
      onChange: (r) => told.push({ referenceId: r.referenceId, stored: (count.get() as { n: number }).n }),
    });
    const records = [shownRecord(), shownRecord(), shownRecord()];
    await Promise.all(records.map((r) => store.insertIfAbsent(r)));
    expect(told).toEqual(records.map((r) => ({ referenceId: r.referenceId, stored: 3 })));
  });
});
