import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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

function opener(path: string): Opener {
  const child = spawn(process.execPath, ['-e', OPENER, COMPILED, path], { stdio: ['pipe', 'pipe', 'inherit'] });
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
  const open = (file: string) => {
    const made = opener(file);
    children.push(made.child);
    return made;
  };
  const refusal = () => JSON.stringify({ name: 'DatabaseInUseError', message: new DatabaseInUseError(path).message });

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
});
