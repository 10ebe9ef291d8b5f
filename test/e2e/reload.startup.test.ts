import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import { spawnGateway } from '../support/process';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';

const KEY = `key-startup-${randomUUID()}`;
const FIRST = `tok_startup_first_${randomUUID()}`;
const ADDED = `tok_startup_added_${randomUUID()}`;
const dir = mkdtempSync(join(tmpdir(), 'reload-startup-'));
const merchantsFile = join(dir, 'merchants.json');
/** TRUSTED_DOCUMENTS as a FIFO: start-up reads it, and waits there until the test writes it. */
const manifest = join(dir, 'manifest.json');
const merchants = (tokens: string[]) => JSON.stringify([{ id: 'shop', apiKey: KEY, clientTokens: tokens }]);

const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;

let sandbox: SandboxHandle;
beforeAll(async () => {
  knownSecrets.add(KEY).add(FIRST).add(ADDED).add(webhookSecret);
  sandbox = await startSandbox({ port: 0, settleMs: 200, rateLimitPerMin: 0, webhookSecret, activeKeys: [KEY] });
  execFileSync('mkfifo', [manifest]);
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SIGHUP while the gateway starts', () => {
  it('neither kills it nor is lost: the process becomes ready, then reads MERCHANTS_FILE again', async () => {
    writeFileSync(merchantsFile, merchants([FIRST]));
    const started = spawnGateway({
      PORT: '0',
      HOST: '127.0.0.1',
      UPSTREAM_BASE_URL: sandbox.url,
      WEBHOOK_SECRET: webhookSecret,
      MERCHANTS_FILE: merchantsFile,
      TRUSTED_DOCUMENTS: manifest,
      TRUSTED_DOCUMENTS_MODE: 'log',
      UPSTREAM_RATE_LIMIT_PER_MIN: '0',
    });
    // Opening a FIFO to write waits for its reader: the gateway has read MERCHANTS_FILE and is
    // reading its manifest, part way through its start, with no port served yet.
    const writer = await open(manifest, 'w');
    try {
      writeFileSync(merchantsFile, merchants([FIRST, ADDED]));
      started.child.kill('SIGHUP');
      await writer.writeFile(JSON.stringify({ ping: 'query Ping { __typename }' }));
    } finally {
      await writer.close();
    }
    const gateway = await started.ready;
    try {
      const create = (token: string) =>
        gql(gateway.graphqlUrl, CREATE_MOBILE, { input: mobileInput() }, { authorization: `Bearer ${token}` });
      // The reload asked for during start-up runs once the gateway is ready, in the same process.
      await eventually(() => (/MERCHANTS_FILE reloaded: changed: shop/.test(gateway.output()) ? true : undefined), 200);
      expect(gateway.child.exitCode).toBeNull();
      expect(gateway.child.pid).toBe(started.child.pid);
      expect(gateway.output()).toMatch(/SIGHUP came while the gateway started/);
      expect((await create(FIRST)).errors).toBeUndefined();
      expect((await create(ADDED)).errors).toBeUndefined();
    } finally {
      await gateway.stop();
    }
  });
});
