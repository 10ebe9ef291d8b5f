import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { capturedLogs, CREATE_MOBILE, gql, mobileInput } from '../support/stack';

const root = join(__dirname, '..', '..');
let child: ChildProcess;
let output = '';

/** The new user's path: `npm start` with no configuration at all serves payouts against the embedded sandbox. */
beforeAll(async () => {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root });
  const env = { PATH: process.env.PATH ?? '', PORT: '0', SANDBOX_PORT: '0', SANDBOX_SETTLE_MS: '100' };
  child = spawn(process.execPath, ['dist/main.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (/ready: /.test(output)) {
        clearInterval(check);
        resolve();
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(check);
      reject(new Error(`gateway exited with ${code}: ${output}`));
    });
  });
}, 60_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
  capturedLogs.push(output);
});

function graphqlUrl(): string {
  const port = /ready: GraphQL and Apollo Sandbox at http:\/\/[^:]+:(\d+)\/graphql/.exec(output)?.[1];
  return `http://127.0.0.1:${port}/graphql`;
}

describe('npm start with no configuration', () => {
  it('prints the sandbox address and one ready line', () => {
    expect(output).toMatch(/embedded sandbox provider at http:\/\/127\.0\.0\.1:\d+/);
    expect(output.match(/ready: /g)).toHaveLength(1);
  });

  it('serves a payout mutation and the health check', async () => {
    const res = await gql<{ createMobileMoneyDisbursement: { status: string } }>(graphqlUrl(), CREATE_MOBILE, { input: mobileInput() });
    expect(res.errors).toBeUndefined();
    expect(res.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    const health = await fetch(graphqlUrl().replace('/graphql', '/healthz'));
    expect(health.status).toBe(200);
  });

  it('serves the Apollo Sandbox landing page to a browser at GET /graphql', async () => {
    const res = await fetch(graphqlUrl(), { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/Apollo Sandbox|embeddable-sandbox/i);
  });

  it('exits 0 on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('a bad setting', () => {
  it('stops startup with one line naming it', () => {
    let stderr = '';
    let status: number | null = 0;
    try {
      execFileSync(process.execPath, ['dist/main.js'], { cwd: root, env: { PATH: process.env.PATH ?? '', PORT: 'eighty' }, stdio: 'pipe' });
    } catch (error) {
      const e = error as { stderr: Buffer; status: number | null };
      stderr = e.stderr.toString();
      status = e.status;
    }
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/PORT/);
  });

  it('refuses open access against a real provider', () => {
    let stderr = '';
    try {
      execFileSync(process.execPath, ['dist/main.js'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', UPSTREAM_BASE_URL: 'https://provider.invalid', MERCHANT_API_KEY: 'k-123' },
        stdio: 'pipe',
      });
    } catch (error) {
      stderr = (error as { stderr: Buffer }).stderr.toString();
    }
    expect(stderr).toMatch(/CLIENT_TOKENS/);
    expect(stderr).not.toContain('k-123');
  });
});
