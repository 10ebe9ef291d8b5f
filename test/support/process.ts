import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capturedLogs, knownSecrets, secretsOf } from './stack';

const main = join(__dirname, '..', '..', 'dist', 'main.js');

/** Working folders made for launched gateways, removed after the file's tests. */
const folders = new Set<string>();

/**
 * A new empty working folder for a gateway process: its default database file (`.data/`) and
 * development key (`.dev/`) land there, never in the repository. Pass the same one to a second
 * launch to restart a gateway on the same files.
 */
export function workingFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-cwd-'));
  folders.add(dir);
  return dir;
}

export interface GatewayProcess {
  child: ChildProcess;
  output(): string;
  url: string;
  graphqlUrl: string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Every process spawned in this test file, ready or not, for the cleanup below. */
const running = new Set<Pick<GatewayProcess, 'child' | 'output' | 'stop'>>();

/**
 * Spawns the real `node dist/main.js` (built by jest's globalSetup) with only `env`, in `cwd` (by
 * default a new working folder), and waits for its ready line. `nodeArgs` go to node before the script.
 */
export function launchGateway(
  env: Record<string, string>,
  cwd = workingFolder(),
  nodeArgs: string[] = [],
): Promise<GatewayProcess> {
  return spawnGateway(env, cwd, nodeArgs).ready;
}

/**
 * launchGateway without the wait: the process at once, to be signalled while it starts, and
 * `ready` once it has printed its ready line (rejected, with its output, if it exits first).
 */
export function spawnGateway(
  env: Record<string, string>,
  cwd = workingFolder(),
  nodeArgs: string[] = [],
): Pick<GatewayProcess, 'child' | 'output'> & { ready: Promise<GatewayProcess> } {
  for (const secret of secretsOf(env)) knownSecrets.add(secret);
  let text = '';
  const child = spawn(process.execPath, [...nodeArgs, main], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (text += c.toString()));
  const output = () => text;
  const stop = () => {
    // A process ended by a signal (SIGKILL in a test) keeps exitCode null: it has exited all the same.
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  };
  running.add({ child, output, stop });
  const ready = new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (/ready: /.test(text)) {
        clearInterval(check);
        child.off('exit', failed);
        resolve();
      }
    }, 20);
    const failed = (code: number | null, signal: NodeJS.Signals | null) => {
      clearInterval(check);
      reject(new Error(`gateway exited with ${code ?? signal}: ${text}`));
    };
    child.once('exit', failed);
  }).then((): GatewayProcess => {
    const port = /ready: GraphQL and Apollo Sandbox at http:\/\/[^:]+:(\d+)\/graphql/.exec(text)?.[1];
    return {
      child,
      output,
      url: `http://127.0.0.1:${port}`,
      graphqlUrl: `http://127.0.0.1:${port}/graphql`,
      stop,
    };
  });
  return { child, output, ready };
}

/**
 * Runs `node dist/main.js` with only `env` (ports 0 unless given) for a start that should fail:
 * answers its exit status and what it wrote to stderr. One that does start is killed after 20 s.
 */
export function runToExit(
  env: Record<string, string>,
  cwd = workingFolder(),
): { status: number | null; stderr: string } {
  try {
    execFileSync(process.execPath, [main], {
      cwd,
      env: { PATH: process.env.PATH ?? '', PORT: '0', SANDBOX_PORT: '0', ...env },
      stdio: 'pipe',
      timeout: 20_000,
    });
    return { status: 0, stderr: '' };
  } catch (error) {
    const e = error as { stderr: Buffer; status: number | null };
    return { status: e.status, stderr: e.stderr.toString() };
  }
}

/** Kills whatever a test file left running and keeps its output for the leak check. */
afterAll(() => {
  for (const p of running) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    capturedLogs.push(p.output());
  }
  running.clear();
});

afterAll(async () => {
  // After the processes: a SIGKILLed one may still hold its files for a moment.
  await Promise.all([...running].map((p) => p.stop()));
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.clear();
});
