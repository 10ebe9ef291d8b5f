import Database from 'better-sqlite3';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeIdentifier } from 'pg';
import { GatewayProcess, launchGateway } from '../support/process';
import { describePostgres, freshDatabase, FreshDatabase, postgresUrl, withClient } from '../support/postgres';
import { sharedProvider, SharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';
import { sqliteFile } from '../support/sqlite.engine';

/**
 * A database that went back in time with nobody running a command (a volume snapshot of the data folder,
 * the mark beside the file with it; a copy started at a new path; the mark deleted or lowered; an older
 * PostgreSQL dump restored, or a failover that lost rows, without db:restored) lacks the payouts made
 * since, and holds the scheduled payouts sent since as SCHEDULED again. Against a provider that pays a
 * repeated referenceId again: the clients' retries and the due scheduled payouts pay none twice.
 */
const TOKEN = 'tok_rewind_client_0123456789abcdef';
knownSecrets.add(TOKEN);
const AS_CLIENT = { authorization: `Bearer ${TOKEN}` };
const ONE = `query One($r: ID!) { disbursement(referenceId: $r) { status } }`;
// One key for every gateway of a test, as replicas and restarts share AUDIT_SIGNING_KEY: the payouts' seals verify on each.
const AUDIT_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Answer = {
  data?: { createMobileMoneyDisbursement?: { status: string } | null; disbursement?: { status: string } | null } | null;
  errors?: { extensions?: { code?: string } }[];
};

async function create(on: GatewayProcess, input: Record<string, unknown>): Promise<string> {
  const a = (await gql(on.graphqlUrl, CREATE_MOBILE, { input }, AS_CLIENT)) as Answer;
  return a.errors?.[0]?.extensions?.code ?? a.data?.createMobileMoneyDisbursement?.status ?? 'NONE';
}

async function statusOn(on: GatewayProcess, referenceId: string): Promise<string | undefined> {
  const a = (await gql(on.graphqlUrl, ONE, { r: referenceId }, AS_CLIENT)) as Answer;
  return a.data?.disbursement?.status;
}

/** How the database goes back: `older` keeps the state to go back to, `rewind` puts it in place. */
interface Rewind {
  /** The database every gateway is started on before the rewind. */
  url(): string;
  /** Run with every gateway stopped. */
  older(): Promise<void>;
  /** Run with every gateway stopped, unless `live`; answers the database the gateways run on after it. */
  rewind(): Promise<string>;
  /** The rewind happens under running replicas (a failover). */
  live?: boolean;
  cleanup(): Promise<void>;
}

function sqliteRewind(kind: 'snapshot' | 'new path' | 'mark deleted' | 'mark lowered'): () => Promise<Rewind> {
  return async () => {
    const file = sqliteFile();
    const folder = join(file.path, '..');
    const kept = mkdtempSync(join(tmpdir(), 'payout-gateway-snapshot-'));
    const copyAt = join(kept, 'moved.sqlite');
    return {
      url: () => file.url,
      async older() {
        if (kind === 'new path') {
          // What `sqlite3 gateway.sqlite ".backup moved.sqlite"` does: SQLite's online backup.
          const db = new Database(file.path, { readonly: true, fileMustExist: true });
          try {
            await db.backup(copyAt);
          } finally {
            db.close();
          }
          return;
        }
        // A snapshot of the whole data folder: the file, and its mark beside it.
        for (const name of readdirSync(folder)) copyFileSync(join(folder, name), join(kept, name));
      },
      async rewind() {
        if (kind === 'new path') return `sqlite:${copyAt}`;
        for (const name of readdirSync(folder)) rmSync(join(folder, name));
        for (const name of readdirSync(kept)) copyFileSync(join(kept, name), join(folder, name));
        const mark = `${file.path}.mark`;
        if (kind === 'mark deleted') unlinkSync(mark);
        if (kind === 'mark lowered')
          writeFileSync(mark, JSON.stringify({ ...(JSON.parse(readFileSync(mark, 'utf8')) as object), mark: 0 }));
        return file.url;
      },
      async cleanup() {
        file.remove();
        rmSync(kept, { recursive: true, force: true });
      },
    };
  };
}

function postgresRewind(live: boolean): () => Promise<Rewind> {
  return async () => {
    const server = postgresUrl() ?? '';
    const database: FreshDatabase = await freshDatabase();
    const name = new URL(database.url).pathname.slice(1);
    const copy = `${name}_older`;
    return {
      url: () => database.url,
      live,
      async older() {
        await withClient(server, (c) =>
          c.query(`CREATE DATABASE ${escapeIdentifier(copy)} TEMPLATE ${escapeIdentifier(name)}`),
        );
      },
      async rewind() {
        // pg_restore of an older dump, or a standby that lacked the last writes promoted: no db:restored.
        await withClient(server, async (c) => {
          await c.query(`DROP DATABASE ${escapeIdentifier(name)} WITH (FORCE)`);
          await c.query(`CREATE DATABASE ${escapeIdentifier(name)} TEMPLATE ${escapeIdentifier(copy)}`);
        });
        return database.url;
      },
      async cleanup() {
        await withClient(server, (c) => c.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(copy)} WITH (FORCE)`));
        await database.drop();
      },
    };
  };
}

function rewindCase(make: () => Promise<Rewind>, replicas: number) {
  return async () => {
    const rewind = await make();
    let provider: SharedProvider | undefined;
    let gateways: GatewayProcess[] = [];
    const launch = async (url: string) => {
      const env = {
        ...(provider?.env ?? {}),
        DATABASE_URL: url,
        PORT: '0',
        CLIENT_TOKENS: TOKEN,
        CLIENT_RATE_LIMIT_PER_MIN: '0',
        RECONCILE_INTERVAL_MS: '100',
        RESEND_AFTER_SECONDS: '5',
        AUDIT_SIGNING_KEY: AUDIT_KEY,
      };
      gateways = [];
      for (let i = 0; i < replicas; i += 1) gateways.push(await launchGateway(env));
    };
    const stopAll = async () => {
      for (const g of gateways) expect(await g.stop()).toBe(0);
    };
    try {
      provider = await sharedProvider({ DATABASE_URL: rewind.url() }, { settleMs: 200, callbackRetryBaseMs: 50 });
      provider.sandbox.setFaults({ payDuplicates: true });
      const paidOf = (ref: unknown) => provider?.sandbox.records().filter((r) => r.referenceId === ref).length;
      await launch(rewind.url());
      const scheduled = Array.from({ length: 4 }, () =>
        mobileInput({ sendAt: new Date(Date.now() + 6_000).toISOString() }),
      );
      for (const input of scheduled) expect(await create(gateways[0], input)).toBe('SCHEDULED');
      await stopAll();
      await rewind.older();
      await launch(rewind.url());
      const retried = Array.from({ length: 10 }, () => mobileInput());
      for (const [i, input] of retried.entries()) expect(await create(gateways[i % replicas], input)).toBe('PENDING');
      await eventually(() => (scheduled.every((s) => paidOf(s.referenceId) === 1) ? true : undefined), 200, 100);

      if (!rewind.live) await stopAll();
      const url = await rewind.rewind();
      if (!rewind.live) await launch(url);
      for (const [i, input] of retried.entries()) {
        let answer = 'NONE';
        for (let attempt = 0; attempt < 100; attempt += 1) {
          answer = await create(gateways[i % replicas], input);
          if (['PENDING', 'SUCCESSFUL'].includes(answer)) break;
          await sleep(200);
        }
        expect(['PENDING', 'SUCCESSFUL']).toContain(answer);
      }
      // The scheduled payouts are due again in the older state: each is settled without a second payment.
      for (const input of scheduled)
        await eventually(
          async () => {
            const status = await statusOn(gateways[0], input.referenceId as string);
            return status && !['SCHEDULED', 'UNKNOWN'].includes(status) ? status : undefined;
          },
          200,
          100,
        );
      for (const input of [...retried, ...scheduled]) expect(paidOf(input.referenceId)).toBe(1);
      expect(provider.sandbox.stats().duplicateCreates).toBe(0);
      await stopAll();
    } finally {
      for (const g of gateways) await g.stop();
      await provider?.sandbox.close();
      await rewind.cleanup();
    }
  };
}

describe('an embedded file that went back in time without a command: none paid twice, retried or scheduled', () => {
  it('a snapshot of the data folder, the mark with it', rewindCase(sqliteRewind('snapshot'), 1), 90_000);
  it('an online-backup copy started at a new path', rewindCase(sqliteRewind('new path'), 1), 90_000);
  it('an older copy with the mark deleted', rewindCase(sqliteRewind('mark deleted'), 1), 90_000);
  it('an older copy with the mark lowered', rewindCase(sqliteRewind('mark lowered'), 1), 90_000);
});

describePostgres('a PostgreSQL database that went back in time without db:restored: none paid twice', () => {
  it('an older dump restored, the gateway stopped', rewindCase(postgresRewind(false), 1), 90_000);
  it('rows lost in a failover under two running replicas', rewindCase(postgresRewind(true), 2), 90_000);
});
