import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeIdentifier } from 'pg';
import { GatewayProcess, launchGateway } from '../support/process';
import { describePostgres, freshDatabase, FreshDatabase, postgresUrl, withClient } from '../support/postgres';
import { sharedProvider, SharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';
import { sqliteFile } from '../support/sqlite.engine';

/**
 * A database that went back in time (the documented backup restored with the documented command, an
 * older copy of the embedded file put in place by hand, a PostgreSQL restore or failover recorded with
 * db:restored) no longer knows the payouts made since; their clients retry them with the same
 * referenceIds. Against a provider that pays a repeated referenceId again, and one slow to take a create
 * in: none is paid twice, none is answered BAD_USER_INPUT.
 */
const TOKEN = 'tok_restore_client_0123456789abcdef';
knownSecrets.add(TOKEN);
const AS_CLIENT = { authorization: `Bearer ${TOKEN}` };

const cli = (name: string) => join(__dirname, '..', '..', 'dist', 'cli', `${name}.main.js`);

function run(name: string, databaseUrl: string, ...args: string[]): string {
  return execFileSync(process.execPath, [cli(name), ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
}

type Answer = {
  data?: { createMobileMoneyDisbursement?: { status: string } | null } | null;
  errors?: { extensions?: { code?: string } }[];
};
const outcome = (a: Answer) => a.errors?.[0]?.extensions?.code ?? a.data?.createMobileMoneyDisbursement?.status;

async function create(gateway: GatewayProcess, input: Record<string, unknown>): Promise<string | undefined> {
  return outcome(await gql(gateway.graphqlUrl, CREATE_MOBILE, { input }, AS_CLIENT));
}

/** Retries a payout until it has an answer other than OUTCOME_UNKNOWN; every answer seen, in order. */
async function retryUntilKnown(gateway: GatewayProcess, input: Record<string, unknown>): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < 150; i += 1) {
    const answer = (await create(gateway, input)) ?? 'NONE';
    seen.push(answer);
    if (answer !== 'OUTCOME_UNKNOWN') return seen;
    await new Promise((r) => setTimeout(r, 200));
  }
  return seen;
}

/** How each engine is backed up and restored, as docs/operations.md tells an operator. */
interface Engine {
  prepare(): Promise<void>;
  databaseUrl(): string;
  /** While the gateway runs (PostgreSQL: a copy of the database, taken with the gateway stopped for it). */
  backup(gateway: { stop(): Promise<void>; start(): Promise<void> }): Promise<void>;
  /** With every gateway stopped. */
  restore(): Promise<void>;
  cleanup(): Promise<void>;
}

function sqliteEngine(): Engine {
  const file = sqliteFile();
  const backups = mkdtempSync(join(tmpdir(), 'payout-gateway-backup-'));
  let taken = 0;
  const backup = () => join(backups, `gateway-backup-${taken}.sqlite`);
  return {
    prepare: async () => undefined,
    databaseUrl: () => file.url,
    async backup() {
      taken += 1;
      expect(run('db.backup', file.url, backup())).toContain('written to');
    },
    async restore() {
      expect(run('db.restore', file.url, backup())).toContain('restored from');
    },
    async cleanup() {
      file.remove();
      rmSync(backups, { recursive: true, force: true });
    },
  };
}

function postgresEngine(): Engine {
  let database: FreshDatabase | undefined;
  const server = postgresUrl() ?? '';
  const copies: string[] = [];
  const copy = () => copies.at(-1) ?? '';
  const name = () => new URL(database?.url ?? '').pathname.slice(1);
  return {
    async prepare() {
      database = await freshDatabase();
    },
    databaseUrl: () => database?.url ?? '',
    async backup(gateway) {
      await gateway.stop();
      copies.push(`${name()}_backup_${copies.length}`);
      await withClient(server, (c) =>
        c.query(`CREATE DATABASE ${escapeIdentifier(copy())} TEMPLATE ${escapeIdentifier(name())}`),
      );
      await gateway.start();
    },
    async restore() {
      await withClient(server, async (c) => {
        await c.query(`DROP DATABASE ${escapeIdentifier(name())} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${escapeIdentifier(name())} TEMPLATE ${escapeIdentifier(copy())}`);
      });
      expect(run('db.restored', database?.url ?? '')).toContain('history went back');
    },
    async cleanup() {
      for (const each of copies)
        await withClient(server, (c) => c.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(each)} WITH (FORCE)`));
      await database?.drop();
    },
  };
}

function restoreSuite(make: () => Engine) {
  let engine: Engine;
  let provider: SharedProvider;
  let env: Record<string, string>;
  beforeAll(async () => {
    engine = make();
    await engine.prepare();
    provider = await sharedProvider({ DATABASE_URL: engine.databaseUrl() }, { settleMs: 300, callbackRetryBaseMs: 50 });
    env = { ...provider.env, PORT: '0', CLIENT_TOKENS: TOKEN, RESEND_AFTER_SECONDS: '30', UPSTREAM_TIMEOUT_MS: '8000' };
  });
  afterAll(async () => {
    await provider.sandbox.close();
    await engine.cleanup();
  });
  afterEach(() => provider.sandbox.setFaults({}));

  let gateway: GatewayProcess;
  const restartable = (settings = env) => ({
    stop: async () => void (await gateway.stop()),
    start: async () => void (gateway = await launchGateway(settings)),
  });
  const paidOf = (ref: string) => provider.sandbox.records().filter((r) => r.referenceId === ref).length;

  it('pays none of the payouts made since the backup twice when their clients retry them', async () => {
    provider.sandbox.setFaults({ payDuplicates: true });
    gateway = await launchGateway(env);
    const before = [mobileInput(), mobileInput()];
    for (const input of before) expect(await create(gateway, input)).toBe('PENDING');
    await engine.backup(restartable());
    const since = Array.from({ length: 100 }, () => mobileInput());
    for (const input of since) expect(await create(gateway, input)).toBe('PENDING');
    expect(await gateway.stop()).toBe(0);

    await engine.restore();
    const restored = await launchGateway(env);
    try {
      expect(restored.output()).toContain('may still be on its way in');
      for (const input of [...before, ...since]) {
        const answers = await retryUntilKnown(restored, input);
        expect(answers).not.toContain('BAD_USER_INPUT');
        expect(['PENDING', 'SUCCESSFUL']).toContain(answers.at(-1));
      }
      for (const input of [...before, ...since]) expect(paidOf(input.referenceId as string)).toBe(1);
      expect(provider.sandbox.stats().duplicateCreates).toBe(0);
    } finally {
      expect(await restored.stop()).toBe(0);
    }
  }, 120_000);

  it.each([
    ['pays a repeat again', true],
    ['refuses a repeat', false],
  ])(
    'a payout the provider %s and is still taking in when the gateway comes back: OUTCOME_UNKNOWN until it shows, paid once',
    async (_kind, payDuplicates) => {
      // This file's earlier restore is recent: the gateway before this one's backup must not wait out its window.
      const before = { ...env, RESEND_AFTER_SECONDS: '0' };
      gateway = await launchGateway(before);
      await engine.backup(restartable(before));
      // Longer than a restore and a restart take on a loaded machine, shorter than RESEND_AFTER_SECONDS.
      provider.sandbox.setFaults({ intakeMs: 12_000, payDuplicates });
      const input = mobileInput();
      const ref = input.referenceId as string;
      // The create reaches the provider, then the gateway dies before the answer: it never learns of it.
      void create(gateway, input).catch(() => undefined);
      await eventually(() => (provider.sandbox.stats().createRequestsByReferenceId[ref] ? true : undefined), 250, 20);
      gateway.child.kill('SIGKILL');
      await gateway.stop();

      await engine.restore();
      provider.sandbox.setFaults({ payDuplicates });
      const restored = await launchGateway(env);
      try {
        const answers = await retryUntilKnown(restored, input);
        expect(answers[0]).toBe('OUTCOME_UNKNOWN');
        expect(answers).not.toContain('BAD_USER_INPUT');
        expect(['PENDING', 'SUCCESSFUL']).toContain(answers.at(-1));
        expect(provider.sandbox.stats().createRequestsByReferenceId[ref]).toBe(1);
        expect(paidOf(ref)).toBe(1);
      } finally {
        expect(await restored.stop()).toBe(0);
      }
    },
    120_000,
  );
}

describe('restored from a backup (SQLite, db:backup and db:restore)', () => restoreSuite(sqliteEngine));
describePostgres('restored from a copy (PostgreSQL, db:restored)', () => restoreSuite(postgresEngine));

describe('an older copy of the embedded file put in place by hand while the gateway was stopped', () => {
  it('is found at start, and no payout it lacks is paid twice', async () => {
    const file = sqliteFile();
    const provider = await sharedProvider({ DATABASE_URL: file.url }, { settleMs: 300, callbackRetryBaseMs: 50 });
    provider.sandbox.setFaults({ payDuplicates: true });
    const env = { ...provider.env, PORT: '0', CLIENT_TOKENS: TOKEN };
    const older = `${file.path}.older`;
    try {
      const first = await launchGateway(env);
      expect(await first.stop()).toBe(0);
      copyFileSync(file.path, older);
      const second = await launchGateway(env);
      const lost = Array.from({ length: 10 }, () => mobileInput());
      for (const input of lost) expect(await create(second, input)).toBe('PENDING');
      expect(await second.stop()).toBe(0);

      copyFileSync(older, file.path);
      const third = await launchGateway(env);
      try {
        expect(third.output()).toContain('the database went back in time');
        for (const input of lost) expect(['PENDING', 'SUCCESSFUL']).toContain((await retryUntilKnown(third, input))[0]);
        for (const input of lost)
          expect(provider.sandbox.records().filter((r) => r.referenceId === input.referenceId)).toHaveLength(1);
      } finally {
        expect(await third.stop()).toBe(0);
      }
    } finally {
      await provider.sandbox.close();
      file.remove();
    }
  }, 60_000);
});
