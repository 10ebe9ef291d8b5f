import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/**
 * Opens an embedded file through the built gateway's own module, with process.dlopen recording every native
 * binary loaded: the SQLite driver and the lock both load theirs.
 */
const LOADER = `
const loaded = [];
const dlopen = process.dlopen;
process.dlopen = (module, filename, ...rest) => { loaded.push(filename); return dlopen(module, filename, ...rest); };
const { mkdtempSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const dir = mkdtempSync(join(require('node:os').tmpdir(), 'payout-gateway-native-'));
try {
  require(process.argv[1]).openSqlite(join(dir, 'gateway.sqlite')).close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(loaded));`;

describe('npm install compiles nothing', () => {
  it("runs no dependency's install script (.npmrc), whatever npm's own policy on them", () => {
    const setting = execFileSync('npm', ['config', 'get', 'ignore-scripts'], { cwd: root, encoding: 'utf8' });
    expect(setting.trim()).toBe('true');
  });

  it('loads only prebuilt Node-API binaries shipped in their packages, one for every Node line', () => {
    const run = spawnSync(process.execPath, ['-e', LOADER, join(root, 'dist', 'database', 'sqlite.open.js')], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    const loaded = JSON.parse(run.stdout) as string[];
    const packages = loaded.map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]);
    expect(packages.sort()).toEqual([`@koromix/koffi-${process.platform}-${process.arch}`, 'better-sqlite3']);
    for (const file of loaded) {
      // node-gyp's output at install: what a compiler had to make.
      expect(file).not.toMatch(/\/build\/(Release|Debug)\//);
      // A Node-API module registers itself through this symbol, whatever Node line loads it.
      expect({ file, napi: readFileSync(file).includes('napi_register_module_v1') }).toEqual({ file, napi: true });
    }
  });
});
