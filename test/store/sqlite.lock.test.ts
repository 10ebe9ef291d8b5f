import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  linkSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { lockExclusive } from '../../src/database/file.flock';
import { DatabaseInUseError, openSqlite } from '../../src/database/sqlite.open';

/** The compiled module, built by jest's globalSetup: what a second gateway process runs. */
const COMPILED = join(__dirname, '..', '..', 'dist', 'database', 'sqlite.open.js');

/**
 * Opens the file in a process of its own: prints `open`, or the error's name and message; closes it
 * (and prints `closed`) when its stdin ends.
 */
const OPENER = `
const { openSqlite } = require(process.argv[1]);
try {
  const handle = openSqlite(process.argv[2]);
  console.log('open');
  process.stdin.on('end', () => { handle.close(); console.log('closed'); });
  process.stdin.resume();
} catch (error) {
  console.log(JSON.stringify({ name: error.name, message: error.message }));
}`;

interface Opener {
  child: ChildProcess;
  /** The next line it prints. */
  line(): Promise<string>;
}

function opener(path: string, cwd?: string): Opener {
  const child = spawn(process.execPath, ['-e', OPENER, COMPILED, path], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    line: async () => {
      const next = await lines.next();
      return next.done ? '(ended)' : next.value;
    },
  };
}

describe('one process per SQLite file', () => {
  let dir: string;
  let path: string;
  const children: ChildProcess[] = [];
  const open = (file: string, cwd?: string) => {
    const made = opener(file, cwd);
    children.push(made.child);
    return made;
  };
  const refusal = (file = path) =>
    JSON.stringify({ name: 'DatabaseInUseError', message: new DatabaseInUseError(file).message });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-'));
    path = join(dir, 'gateway.sqlite');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second process while the first holds the file, and lets it in once the first closes it', async () => {
    const first = open(path);
    expect(await first.line()).toBe('open');
    expect(() => openSqlite(path)).toThrow(DatabaseInUseError);
    expect(await open(path).line()).toBe(refusal());

    first.child.stdin!.end();
    expect(await first.line()).toBe('closed');
    const handle = openSqlite(path);
    try {
      expect(await open(path).line()).toBe(refusal());
    } finally {
      handle.close();
    }
    expect(await open(path).line()).toBe('open');
  });

  it('lets the file go when its holder is killed', async () => {
    const holder = open(path);
    expect(await holder.line()).toBe('open');
    expect(await open(path).line()).toBe(refusal());
    holder.child.kill('SIGKILL');
    await once(holder.child, 'exit');
    openSqlite(path).close();
  });

  it.each([
    ['a hard link', (file: string, other: string) => linkSync(file, other)],
    ['a symbolic link', (file: string, other: string) => symlinkSync(file, other)],
  ])('refuses the same file opened through %s, in another process and in the same one', async (_name, link) => {
    const first = open(path);
    expect(await first.line()).toBe('open');
    const other = join(dir, 'other-name.sqlite');
    link(path, other);
    expect(await open(other).line()).toBe(refusal(other));
    expect(() => openSqlite(other)).toThrow(new DatabaseInUseError(other));

    first.child.stdin!.end();
    expect(await first.line()).toBe('closed');
    const handle = openSqlite(other);
    try {
      expect(await open(path).line()).toBe(refusal());
    } finally {
      handle.close();
    }
  });

  it('refuses `./x` while `x` is open, the path written either way', async () => {
    const first = open('gateway.sqlite', dir);
    expect(await first.line()).toBe('open');
    expect(await open('./gateway.sqlite', dir).line()).toBe(refusal('./gateway.sqlite'));
    expect(await open(`${dir}/./gateway.sqlite`).line()).toBe(refusal(`${dir}/./gateway.sqlite`));
  });

  it('refuses a second open in the same process, and the first keeps its file and its writes', async () => {
    const handle = openSqlite(path);
    try {
      expect(() => openSqlite(path)).toThrow(new DatabaseInUseError(path));
      expect(() => openSqlite(path)).toThrow(new DatabaseInUseError(path));
      handle.db.exec('CREATE TABLE kept (n INTEGER)');
      handle.db.prepare('INSERT INTO kept VALUES (1)').run();
      expect(await open(path).line()).toBe(refusal());
    } finally {
      handle.close();
    }
    const again = openSqlite(path);
    try {
      expect(again.db.prepare('SELECT n FROM kept').all()).toEqual([{ n: 1 }]);
    } finally {
      again.close();
    }
  });

  it('a lock file deleted as stale admits no second process: the hold on the file itself stays', async () => {
    const first = open(path);
    expect(await first.line()).toBe('open');
    expect(readdirSync(dir).filter((name) => !/^gateway\.sqlite(-wal|-shm)?$/.test(name))).toEqual([
      'gateway.sqlite.lock',
    ]);
    unlinkSync(`${path}.lock`);
    expect(await open(path).line()).toBe(refusal());
  });

  it('a copy renamed over the file admits no second process: the hold on the path beside it stays', async () => {
    const first = open(path);
    expect(await first.line()).toBe('open');
    writeFileSync(`${path}.copy`, '');
    renameSync(`${path}.copy`, path);
    expect(await open(path).line()).toBe(refusal());
  });
});

describe('lockExclusive: flock(2) on one open file description', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'payout-gateway-flock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second descriptor of the same file, in the same process too, until the first is closed', () => {
    const file = join(dir, 'held');
    const first = openSync(file, 'w');
    const second = openSync(file, 'r');
    try {
      expect(lockExclusive(first)).toBe(true);
      expect(lockExclusive(second)).toBe(false);
      closeSync(first);
      expect(lockExclusive(second)).toBe(true);
    } finally {
      closeSync(second);
    }
  });

  it('throws any other failure with its errno named', () => {
    let thrown: unknown;
    try {
      lockExclusive(-1);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'EBADF', message: 'flock(-1) failed: EBADF' });
  });
});
