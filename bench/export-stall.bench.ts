import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import { startSandbox } from '../src/sandbox/sandbox.server';
import { seedPayouts } from '../test/support/seed';

/**
 * What a long export does to everything else on the same gateway: a create and /healthz timed
 * alone, then while one export (and then eight at once) of EXPORT_ROWS payouts is read as fast as
 * the client can. The gateway runs in this process, as in the tests; an export that held the event
 * loop shows as the create's and /healthz's wait. `node dist-bench/bench/export-stall.bench.js`,
 * with BENCH_DATABASE_URL=postgres://… for PostgreSQL (a fresh database on that server).
 */
const ROWS = Number(process.env.EXPORT_ROWS ?? 300_000);
const FROM = Date.parse('2026-01-01T00:00:00Z');
const WINDOW = 'from=2025-12-01T00:00:00Z&to=2026-03-01T00:00:00Z';

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  return `n=${ms.length} median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`;
};

async function database(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.BENCH_DATABASE_URL;
  if (!server) {
    const dir = mkdtempSync(join(tmpdir(), 'export-stall-'));
    return { url: `sqlite:${join(dir, 'gateway.sqlite')}`, drop: async () => rmSync(dir, { recursive: true }) };
  }
  const name = `bench_${randomUUID().replaceAll('-', '')}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: server });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name} TEMPLATE template0`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE ${name} WITH (FORCE)`) };
}

async function main(): Promise<void> {
  const db = await database();
  const sandbox = await startSandbox({ port: 0, settleMs: 400, rateLimitPerMin: 0, webhookSecret: 'whsec_bench' });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM_BASE_URL: sandbox.url,
    MERCHANT_API_KEY: 'sandbox-key',
    WEBHOOK_SECRET: 'whsec_YmVuY2gtd2ViaG9vay1zZWNyZXQ=',
    CLIENT_RATE_LIMIT_PER_MIN: '0',
    UPSTREAM_RATE_LIMIT_PER_MIN: '0',
    LOG_LEVEL: 'warn',
    DATABASE_URL: db.url,
  });
  const { gateway } = await startApp({
    config,
    trustedProvider: true,
    logDestination: new Writable({ write: (_c, _e, done) => done() }),
  });
  try {
    const seedTime = await timed(() =>
      seedPayouts({ databaseUrl: db.url, merchantId: 'default', count: ROWS, from: FROM }),
    );
    console.log(`${db.url.split(':')[0]}: seeded ${ROWS} payouts in ${seedTime.toFixed(0)} ms`);
    const create = () =>
      fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `mutation C($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { status } }`,
          variables: {
            input: { referenceId: randomUUID(), amount: '1.00', accountNumber: '260971234567', currency: 'ZMW' },
          },
        }),
      }).then((r) => r.text());
    const healthz = () => fetch(`${gateway.url}/healthz`).then((r) => r.text());
    const exportAll = () =>
      fetch(`${gateway.url}/exports/payouts.csv?${WINDOW}`).then(async (r) => {
        if (r.status !== 200) return `${r.status}`;
        return `${(await r.text()).length} chars`;
      });

    const alone = { create: [] as number[], healthz: [] as number[] };
    for (let i = 0; i < 10; i += 1) {
      alone.create.push(await timed(create));
      alone.healthz.push(await timed(healthz));
    }
    console.log(`alone: create ${stats(alone.create)}; /healthz ${stats(alone.healthz)}`);

    for (const exportsAtOnce of [1, 8]) {
      const during = { create: [] as number[], healthz: [] as number[] };
      let running = true;
      const started = performance.now();
      const all = Promise.all(Array.from({ length: exportsAtOnce }, exportAll)).then((answers) => {
        running = false;
        return answers;
      });
      while (running) {
        during.create.push(await timed(create));
        during.healthz.push(await timed(healthz));
      }
      const answers = await all;
      console.log(
        `${exportsAtOnce} export(s) (${answers.join(', ')}) in ${(performance.now() - started).toFixed(0)} ms; ` +
          `meanwhile create ${stats(during.create)}; /healthz ${stats(during.healthz)}`,
      );
    }
  } finally {
    await gateway.close();
    await sandbox.close();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
