import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { engines, unsupportedNode } from '../../scripts/node-supported.cjs';

const root = join(__dirname, '..', '..');
const CHECK = join(root, 'scripts', 'node-supported.cjs');
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

describe('the supported Node.js lines', () => {
  let dir: string;
  /** A preload that makes this Node say it is `version` (process.versions.node is configurable). */
  const posingAs = (version: string) => {
    const file = join(dir, `node-${version}.cjs`);
    writeFileSync(file, `Object.defineProperty(process.versions, 'node', { value: '${version}' });`);
    return ['--require', file];
  };
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'payout-gateway-node-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['18.20.8', false],
    ['20.19.0', false],
    ['22.14.0', false],
    ['22.15.0', true],
    ['23.11.0', false],
    ['24.0.0', true],
    ['24.22.3', true],
    ['25.0.0', false],
  ])('Node.js %s supported: %s', (version, supported) => {
    const refusal = unsupportedNode(version, engines);
    if (supported) expect(refusal).toBeUndefined();
    else
      expect(refusal).toBe(
        `payout-gateway runs on Node.js ${engines} (the LTS lines 22 and 24); this is Node.js ${version}. See the README's first lines.`,
      );
  });

  it('the check exits 1 with that one sentence on an unsupported Node, and 0 on this one', () => {
    const refused = spawnSync(process.execPath, [...posingAs('20.19.0'), CHECK], { encoding: 'utf8' });
    expect({ status: refused.status, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `${unsupportedNode('20.19.0', engines)}\n`,
    });
    const admitted = spawnSync(process.execPath, [CHECK], { encoding: 'utf8' });
    expect({ status: admitted.status, output: admitted.stdout + admitted.stderr }).toEqual({ status: 0, output: '' });
  });

  it.each(['start', 'test', 'test:domain', 'bench'])('`npm %s` runs the check before anything else', (name) => {
    expect(scripts[name]).toMatch(/^node scripts\/node-supported\.cjs && /);
  });

  it('every entry point imports the check first, and the built gateway refuses an unsupported Node with the same sentence', () => {
    const src = join(root, 'src');
    const entries = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file === 'main.ts' || file.endsWith('.main.ts'),
    );
    expect(entries.length).toBeGreaterThan(8);
    for (const entry of entries) {
      const first = readFileSync(join(src, entry), 'utf8').split('\n')[0];
      const expected = relative(join(src, entry, '..'), join(src, 'node.supported')) || './node.supported';
      expect({ entry, first }).toEqual({
        entry,
        first: `import '${expected.startsWith('.') ? expected : `./${expected}`}';`,
      });
    }
    const started = spawnSync(process.execPath, [...posingAs('20.19.0'), join(root, 'dist', 'main.js')], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect({ status: started.status, stderr: started.stderr }).toEqual({
      status: 1,
      stderr: `${unsupportedNode('20.19.0', engines)}\n`,
    });
  });
});
