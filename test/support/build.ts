import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Jest globalSetup: compiles the gateway once, so tests can run the real `node dist/main.js` as a process. */
export default function build(): void {
  const root = join(__dirname, '..', '..');
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
