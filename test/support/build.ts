import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Jest globalSetup: compiles the gateway once, so tests can run the real `node dist/main.js` as a
 * process, and builds the console, which the browser tests open at /console.
 */
export default function build(): void {
  const root = join(__dirname, '..', '..');
  const run = (script: string, ...args: string[]) =>
    execFileSync(process.execPath, [join(root, 'node_modules', ...script.split('/')), ...args], {
      cwd: root,
      stdio: 'inherit',
      // Jest sets NODE_ENV=test, which would give the console React's development build: test what ships.
      env: { ...process.env, NODE_ENV: 'production' },
    });
  run('typescript/bin/tsc', '-p', 'tsconfig.build.json');
  run('vite/bin/vite.js', 'build', '-c', 'console/vite.config.mts');
}
