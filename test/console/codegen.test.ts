import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/**
 * The console's typed operations and its trusted-documents manifest are generated from its
 * graphql() calls and schema.graphql, and committed: a console operation or a schema change
 * without `npm run console:codegen` fails here, as a gateway enforcing the manifest would refuse it.
 * The generator's own check mode, as a process (its CLI loads as ES modules, which jest cannot).
 */
describe('the console generated code', () => {
  it('is what npm run console:codegen writes now', () => {
    const cli = join(root, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js');
    const run = spawnSync(process.execPath, [cli, '--config', 'console/codegen.ts', '--check'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect({ status: run.status, stale: /stale files[\s\S]*/.exec(run.stdout + run.stderr)?.[0] }).toEqual({
      status: 0,
      stale: undefined,
    });
  });
});
