import { randomUUID } from 'node:crypto';
import { linkSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { launchGateway, runToExit, workingFolder } from '../support/process';
import { capturedLogs, knownSecrets } from '../support/stack';

const PASSWORD = 'pw-Startup-Secret-7f3a9c';

/** A port nothing listens on: taken from the system, then let go. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** What a start that fails wrote to stdout and stderr together, kept for the leak check. */
async function failedStart(env: Record<string, string>): Promise<string> {
  const failure = await launchGateway({ PORT: '0', SANDBOX_PORT: '0', ...env }).then(
    (started) => {
      void started.stop();
      return new Error('it started');
    },
    (error: unknown) => error as Error,
  );
  capturedLogs.push(failure.message);
  return failure.message;
}

beforeAll(() => knownSecrets.add(PASSWORD));

describe('a DATABASE_URL the gateway cannot use stops startup', () => {
  it('unreachable: exits 1 with one line naming DATABASE_URL and the server, never the password', async () => {
    const port = await closedPort();
    const output = await failedStart({ DATABASE_URL: `postgres://payouts:${PASSWORD}@127.0.0.1:${port}/payouts` });
    expect(output).toMatch(/^gateway exited with 1: /);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).toMatch(
      new RegExp(`Cannot open the database of DATABASE_URL \\(PostgreSQL at 127\\.0\\.0\\.1:${port}/payouts\\)`),
    );
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toMatch(/ready: /);
  });

  it.each([
    ['no host', `postgres://payouts:${PASSWORD}@/payouts`],
    ['an unknown scheme', `mysql://payouts:${PASSWORD}@127.0.0.1/payouts`],
    ['no path after sqlite:', 'sqlite:'],
  ])('malformed (%s): exits 1 with one line naming DATABASE_URL, never its value', (_name, url) => {
    const { status, stderr } = runToExit({ DATABASE_URL: url });
    capturedLogs.push(stderr);
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'Invalid setting DATABASE_URL: must be postgres://... or sqlite:<path>',
    ]);
  });
});

describe('one process per SQLite file', () => {
  it('a second gateway on the same working folder (the default file) refuses to start, saying why', async () => {
    const cwd = workingFolder();
    const first = await launchGateway({ PORT: '0', SANDBOX_PORT: '0' }, cwd);
    try {
      const { status, stderr } = runToExit({}, cwd);
      expect(status).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/DATABASE_URL/);
      expect(stderr).toMatch(/\.data\/gateway\.sqlite is in use by another process: one gateway per file/);
      // The first one was not disturbed.
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    // Once the first has stopped, the file is free again.
    const next = await launchGateway({ PORT: '0', SANDBOX_PORT: '0' }, cwd);
    expect(await next.stop()).toBe(0);
  });

  it.each([
    ['a hard link', linkSync],
    ['a symbolic link', symlinkSync],
  ])('a second gateway on the same file through %s refuses to start while the first serves', async (_name, link) => {
    const cwd = workingFolder();
    const file = join(cwd, 'payouts.sqlite');
    const other = join(cwd, 'other.sqlite');
    const first = await launchGateway({ PORT: '0', SANDBOX_PORT: '0', DATABASE_URL: `sqlite:${file}` }, cwd);
    try {
      link(file, other);
      const { status, stderr } = runToExit({ DATABASE_URL: `sqlite:${other}` }, cwd);
      expect(status).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`SQLite file ${other} is in use by another process: one gateway per file`);
      const created = await fetch(first.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `mutation { createMobileMoneyDisbursement(input: { referenceId: "${randomUUID()}", amount: "10.00", currency: "ZMW", accountNumber: "260971234567" }) { status } }`,
        }),
      });
      expect(await created.json()).toEqual({ data: { createMobileMoneyDisbursement: { status: 'PENDING' } } });
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });
});
