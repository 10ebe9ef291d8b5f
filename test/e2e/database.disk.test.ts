import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, statfsSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { PayoutRow } from '../support/fixtures';
import { GatewayProcess, launchGateway } from '../support/process';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';

type Readiness = { checks: Record<string, boolean>; problem?: string };
const TOKEN = 'tok_db_disk_full_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/**
 * A 4 MB tmpfs of the test's own, so the disk can really be filled. Mounting needs root (CI runs as
 * root); elsewhere the file is skipped and says why.
 */
function smallDisk(): { dir: string } | { skipped: string } {
  const dir = mkdtempSync(join(tmpdir(), 'payout-gateway-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmdirSync(dir);
    return { skipped: (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error) };
  }
}

const disk = smallDisk();
if ('skipped' in disk) console.log(`database.disk.test.ts skipped: cannot mount a small tmpfs (${disk.skipped})`);
const describeOnSmallDisk = 'dir' in disk ? describe : describe.skip;

/** Writes zeros until the file system refuses, leaving it full; returns the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  try {
    for (const size of [65_536, 4096, 512]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size));
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

describeOnSmallDisk('the embedded file on a disk that fills up', () => {
  const dir = 'dir' in disk ? disk.dir : '';
  let sandbox: SandboxHandle;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    knownSecrets.add(TOKEN);
    const shared = await sharedProvider(
      { DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}` },
      {
        settleMs: 300,
        callbackRetryBaseMs: 50,
      },
    );
    sandbox = shared.sandbox;
    gateway = await launchGateway({ ...shared.env, PORT: '0', CLIENT_TOKENS: TOKEN, CLIENT_RATE_LIMIT_PER_MIN: '0' });
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await sandbox?.close();
    execFileSync('umount', [dir]);
    rmdirSync(dir);
  });

  const create = (input: Record<string, unknown>) =>
    gql<{ createMobileMoneyDisbursement: PayoutRow }>(gateway.graphqlUrl, CREATE_MOBILE, { input }, AUTH);
  const readiness = async () => {
    const res = await fetch(`${gateway.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Readiness };
  };

  it('answers SERVICE_UNAVAILABLE and sends nothing while full, reports not ready, and serves again once space returns, without a restart', async () => {
    expect((await create(mobileInput())).data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    expect((await readiness()).status).toBe(200);

    const filler = fill(dir);
    const sentBefore = sandbox.stats().createRequests;
    const refused = [mobileInput(), mobileInput(), mobileInput()];
    for (const input of refused) {
      const answer = await create(input);
      expect(answer.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
      expect(answer.data?.createMobileMoneyDisbursement ?? null).toBeNull();
    }
    expect(sandbox.stats().createRequests).toBe(sentBefore);
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body.checks.store).toBe(false);

    rmSync(filler);
    // No create arrives while it says not ready: it finds out by itself that writes work again.
    await eventually(async () => ((await readiness()).status === 200 ? true : undefined), 100, 100);
    const retried = await create(refused[0]);
    expect(retried.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    expect(sandbox.stats().createRequestsByReferenceId[String(refused[0].referenceId)]).toBe(1);
  });

  it('stops writing before a WAL an outside reader pins fills the disk, and writes again by itself the moment the reader lets go', async () => {
    const wal = join(dir, 'gateway.sqlite-wal');
    const reader = new Database(join(dir, 'gateway.sqlite'), { readonly: true });
    let refused: Record<string, unknown> | undefined;
    let pinned: number | undefined;
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM payouts').get();
      // A write refused after the provider answered leaves that payout OUTCOME_UNKNOWN (sent once,
      // rechecked later); a create refused before sending says SERVICE_UNAVAILABLE.
      for (let i = 0; i < 2000 && !refused; i += 1) {
        const input = mobileInput();
        const code = (await create(input)).errors?.[0]?.extensions?.code;
        if (code === 'SERVICE_UNAVAILABLE') refused = input;
        else if (code !== undefined) expect(code).toBe('OUTCOME_UNKNOWN');
      }
      expect(refused).toBeDefined();
      expect(sandbox.stats().createRequestsByReferenceId[String(refused!.referenceId)]).toBeUndefined();
      const down = await readiness();
      expect(down.status).toBe(503);
      expect(down.body.problem).toMatch(/a reader holds an old snapshot/);
      // Stopped at its share of the disk, not by a full one: what is left still takes in what the WAL holds.
      pinned = statSync(wal).size;
      const { bavail, bsize } = statfsSync(dir);
      expect(bavail * bsize).toBeGreaterThan(pinned);
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }

    // Nothing freed by hand and no wait for a readiness check: the next creates fold the WAL and go through.
    for (let i = 0; i < 5; i += 1) {
      const answer = await create(i === 0 ? refused! : mobileInput());
      expect(answer.errors).toBeUndefined();
    }
    expect(sandbox.stats().createRequestsByReferenceId[String(refused!.referenceId)]).toBe(1);
    expect((await readiness()).status).toBe(200);
    // The WAL gave back the space the reader had pinned.
    expect(statSync(wal).size).toBeLessThan(pinned);
  });
});
