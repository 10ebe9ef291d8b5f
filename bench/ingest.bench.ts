import { Client } from 'graphql-ws';
import { performance } from 'node:perf_hooks';
import { BenchSettings } from './bench.settings';
import { Chart, Section, TargetCheck } from './bench.report';
import { fmt, waitUntil } from './bench.stats';
import { CallbackSigner, newWebhookSecret } from './callback.signer';
import { GatewayStarter, ownCores, ProcessStats, Usage, usageBetween } from './child.ipc';
import { CallbackTarget, createPayouts, NEVER_SETTLES_ACCOUNT, subscriberClient } from './gateway.client';
import { LoadResult, runLoad } from './load.runner';
import { ReferenceIds } from './mutation.bench';
import { serverBinaries, startPostgresServer } from '../test/support/postgres.server';

/** How long the background database work is measured for with no traffic. */
const QUIET_MS = 1000;

interface IngestRow {
  store: string;
  load: LoadResult;
  cpuUsPerCallback: number;
  use: Usage;
  loadGenCores: number;
  published: number;
  /** Creates per second while the payouts were prepared (GraphQL, through the gateway, to the sandbox). */
  createsPerSec: number;
  /** Gateway CPU per create while the payouts were prepared. */
  cpuUsPerCreate: number;
  /**
   * What the gateway asked of its database per create and per callback (a sample after the measured
   * phases): on PostgreSQL queries sent (round trips), on SQLite statements run; and on SQLite the
   * writes handed to its group commit per create.
   */
  roundTripsPerCreate: number;
  roundTripsPerCallback: number;
  groupWritesPerCreate?: number;
  /** Database work per second with no traffic (polls), taken out of the per-create and per-callback counts. */
  backgroundPerSec: number;
}

/** Counts every update on the merchant's stream: proof that each applied callback was also published. */
function watchStream(gatewayUrl: string): { client: Client; count: () => number } {
  const client = subscriberClient(gatewayUrl);
  let events = 0;
  client.subscribe(
    { query: 'subscription { disbursementUpdates { referenceId } }' },
    {
      next: () => {
        events += 1;
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
  return { client, count: () => events };
}

async function ingestRun(
  store: string,
  env: Record<string, string>,
  settings: BenchSettings,
  startGateway: GatewayStarter,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<IngestRow> {
  const { callbacks, warmupCallbacks, connections } = settings.ingest;
  const secret = newWebhookSecret();
  const gateway = await startGateway({ BENCH_WEBHOOK_SECRET: secret, ...env });
  const probe = new CallbackTarget(gateway.callbackUrl, 1);
  const watcher = watchStream(gateway.url);
  try {
    // autocannon builds one request per connection beyond `amount`, so a few spare payouts keep every body distinct.
    const total = 10 + warmupCallbacks + callbacks + 2 * connections;
    const refs = Array.from({ length: total }, () => ids.next(`ingest-${store}`));
    log(`ingest ${store}: creating ${total} payouts through the gateway`);
    const beforeCreates = await gateway.stats();
    const createsStarted = performance.now();
    await createPayouts(gateway.url, refs, NEVER_SETTLES_ACCOUNT, settings.createConcurrency);
    const createsPerSec = (total * 1000) / (performance.now() - createsStarted);
    const cpuUsPerCreate = ((await gateway.stats()).cpuUs - beforeCreates.cpuUs) / total;
    const signer = new CallbackSigner(secret);
    const signed = refs.map((ref) => signer.successful(ref, NEVER_SETTLES_ACCOUNT));
    let cursor = 0;
    const next = () => signed[Math.min(cursor++, signed.length - 1)];

    // Single callbacks first, until one shows on the stream: the subscription is live before anything is counted.
    for (let attempt = 0; attempt < 10 && watcher.count() === 0; attempt += 1) {
      await probe.post(next());
      await waitUntil(() => watcher.count() > 0, 500);
    }
    // A stream that showed nothing is not waited on again: the table reports what was published.
    const streamLive = watcher.count() > 0;
    const url = gateway.callbackUrl;
    const seenBeforeWarmup = watcher.count();
    const warm = await runLoad({ url, connections, amount: warmupCallbacks, next });
    if (streamLive) await waitUntil(() => watcher.count() >= seenBeforeWarmup + warm.ok, 10_000);

    log(`ingest ${store}: ${callbacks} signed callbacks, ${connections} connections`);
    const before = await gateway.stats();
    const published = watcher.count();
    const ownCpu = process.cpuUsage();
    const started = performance.now();
    const load = await runLoad({ url, connections, amount: callbacks, next });
    const loadGenCores = ownCores(ownCpu, performance.now() - started);
    const use = usageBetween(before, await gateway.stats());
    if (streamLive) await waitUntil(() => watcher.count() - published >= load.ok, 10_000);
    // Database work, counted apart from the measured phases: 200 creates, then 200 callbacks to them. The
    // background work of those seconds (relay and due-loop polls, the change-log listener, reconciliation
    // leases) is measured first over a second with no traffic and taken out at that rate.
    const sample = Array.from({ length: 200 }, () => ids.next(`trips-${store}`));
    const work = (s: ProcessStats) => s.databaseQueries + s.sqliteStatements;
    const quietFrom = await gateway.stats();
    const quietStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const atStart = await gateway.stats();
    const perMs = (of: (s: ProcessStats) => number) =>
      (of(atStart) - of(quietFrom)) / (performance.now() - quietStarted);
    const [backgroundWork, backgroundWrites] = [perMs(work), perMs((s) => s.groupWrites)];
    const createsFrom = performance.now();
    await createPayouts(gateway.url, sample, NEVER_SETTLES_ACCOUNT, 8);
    const afterCreates = await gateway.stats();
    const createsMs = performance.now() - createsFrom;
    for (const ref of sample) await probe.post(signer.successful(ref, NEVER_SETTLES_ACCOUNT));
    const afterCallbacks = await gateway.stats();
    const callbacksMs = performance.now() - createsFrom - createsMs;
    const net = (done: number, ms: number, rate: number) => Math.max(0, done - rate * ms) / sample.length;
    const roundTripsPerCreate = net(work(afterCreates) - work(atStart), createsMs, backgroundWork);
    const roundTripsPerCallback = net(work(afterCallbacks) - work(afterCreates), callbacksMs, backgroundWork);
    const groupWritesPerCreate =
      afterCreates.groupWrites > 0
        ? net(afterCreates.groupWrites - atStart.groupWrites, createsMs, backgroundWrites)
        : undefined;
    const backgroundPerSec = backgroundWork * 1000;
    return {
      store,
      load,
      cpuUsPerCallback: load.ok > 0 ? (use.cpuMs * 1000) / load.ok : Number.NaN,
      use,
      loadGenCores,
      published: watcher.count() - published,
      createsPerSec,
      cpuUsPerCreate,
      roundTripsPerCreate,
      roundTripsPerCallback,
      groupWritesPerCreate,
      backgroundPerSec,
    };
  } finally {
    await watcher.client.dispose();
    await probe.close();
    await gateway.close();
  }
}

/** A count as the table shows it (two decimals): a target is judged on what is printed. */
const shown = (n: number) => Math.round(n * 100) / 100;

/** Gateway CPU one payout costs: its create and one callback. */
const perPayout = (r: IngestRow) => r.cpuUsPerCreate + r.cpuUsPerCallback;

export interface IngestOutcome {
  section: Section;
  targets: TargetCheck[];
  chart: Chart;
}

/** Part 3: signed callbacks per second one gateway verifies, applies and publishes; on the default store (SQLite), then on PostgreSQL. */
export async function runIngestBench(
  settings: BenchSettings,
  startGateway: GatewayStarter,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<IngestOutcome> {
  const rows: IngestRow[] = [await ingestRun('SQLite (default)', {}, settings, startGateway, ids, log)];
  const notes: string[] = [];
  // The bench's own PostgreSQL, so its round trips and CPU are this gateway's alone; the same database's figures
  // from a shared server would include its other users.
  const own = settings.databaseUrl || !serverBinaries() ? undefined : await startPostgresServer();
  const url = settings.databaseUrl ?? own?.url;
  if (url) {
    notes.push(
      own
        ? 'PostgreSQL: a PostgreSQL 15 server the bench started on a free port (fsync off), used by nothing else.'
        : 'PostgreSQL: BENCH_DATABASE_URL; if others use that server, the figures include their load.',
    );
    try {
      rows.push(await ingestRun('PostgreSQL', { BENCH_DATABASE_URL: url }, settings, startGateway, ids, log));
    } finally {
      await own?.destroy();
    }
  } else {
    notes.push('PostgreSQL: not run (no PostgreSQL server binaries; set BENCH_DATABASE_URL to include it).');
  }

  for (const r of rows) {
    if (r.published < r.load.ok)
      notes.push(
        `${r.store}: ${fmt(r.load.ok - r.published, 0)} callbacks were acknowledged but never reached the stream subscriber.`,
      );
  }
  const sqlite = rows[0];
  const postgres = rows.find((r) => r.store === 'PostgreSQL');
  return {
    section: {
      title: '3. Callback ingest: signed callbacks one gateway verifies, applies and publishes',
      tables: [
        {
          headers: [
            'store',
            'callbacks 2xx',
            'failures',
            'callbacks/s',
            'p50 ms',
            'p99 ms',
            'gateway CPU µs / callback',
            'of which kernel',
            'gateway loop busy',
            'load generator cores',
            'published (seen on the stream)',
            'creates/s (preparing)',
            'gateway CPU µs / create',
            'database round trips (SQLite: statements) / create',
            'database round trips (SQLite: statements) / callback',
            'group-commit writes / create',
          ],
          rows: rows.map((r) => [
            r.store,
            fmt(r.load.ok, 0),
            `${r.load.non2xx + r.load.errors}`,
            fmt(r.load.perSec, 0),
            fmt(r.load.p50Ms, 2),
            fmt(r.load.p99Ms, 2),
            fmt(r.cpuUsPerCallback, 0),
            `${fmt(r.use.kernelShare * 100, 0)} %`,
            `${fmt(r.use.loopUtilization * 100, 0)} %`,
            fmt(r.loadGenCores, 2),
            fmt(r.published, 0),
            fmt(r.createsPerSec, 0),
            fmt(r.cpuUsPerCreate, 0),
            fmt(r.roundTripsPerCreate, 2),
            fmt(r.roundTripsPerCallback, 2),
            r.groupWritesPerCreate === undefined ? '–' : fmt(r.groupWritesPerCreate, 2),
          ]),
        },
      ],
      notes: [
        `Each callback is a distinct payout created beforehand through the gateway (Pending at the sandbox, account …222), signed with Standard Webhooks and turned Successful: every one is a real change that is stored and published. ${settings.ingest.connections} connections, ${fmt(settings.ingest.callbacks, 0)} measured after ${fmt(settings.ingest.warmupCallbacks, 0)} warm-up.`,
        'One subscriber on the merchant stream (disbursementUpdates) counts what was published.',
        `creates/s: the GraphQL creates that prepare the payouts, ${settings.createConcurrency} at a time, through the gateway to the sandbox (whose own cost is in the figure). Database round trips: the queries the gateway's PostgreSQL clients sent (node-postgres sends one per round trip; BEGIN and COMMIT count) over 200 more creates and then 200 callbacks, after the measured phases, less the background polls of those seconds at the rate measured over ${QUIET_MS / 1000} s of no traffic just before (${rows.map((r) => `${r.store}: ${fmt(r.backgroundPerSec, 1)}/s`).join(', ')}). SQLite runs in the process, with no round trips: its row counts the statements run (SAVEPOINT, BEGIN and COMMIT included) and the writes handed to its group commit.`,
        ...notes,
      ],
    },
    targets: [
      {
        what: 'embedded file: statements per create / group-commit writes per create',
        target: '≤ 10 / ≤ 2',
        result: `${fmt(sqlite.roundTripsPerCreate, 2)} / ${fmt(sqlite.groupWritesPerCreate ?? Number.NaN, 2)}`,
        met: shown(sqlite.roundTripsPerCreate) <= 10 && shown(sqlite.groupWritesPerCreate ?? Infinity) <= 2,
      },
      {
        what: 'signed callbacks applied and published per second, default store',
        target: '≥ 5,000',
        result: fmt(sqlite.load.perSec, 0),
        met: sqlite.load.perSec >= 5_000,
      },
      ...(postgres
        ? [
            {
              what: 'PostgreSQL: database round trips per create / per callback',
              target: '≤ 3 / ≤ 2',
              result: `${fmt(postgres.roundTripsPerCreate, 2)} / ${fmt(postgres.roundTripsPerCallback, 2)}`,
              met: shown(postgres.roundTripsPerCreate) <= 3 && shown(postgres.roundTripsPerCallback) <= 2,
            },
            {
              what: 'PostgreSQL: gateway CPU per payout (create + callback) over the default store’s',
              target: '≤ 1.5x',
              result: `${fmt(perPayout(postgres) / perPayout(sqlite), 2)}x (${fmt(perPayout(postgres), 0)} vs ${fmt(perPayout(sqlite), 0)} µs)`,
              met: perPayout(postgres) <= 1.5 * perPayout(sqlite),
            },
          ]
        : []),
    ],
    chart: {
      title: 'Callback ingest',
      unit: 'callbacks / s',
      groups: rows.map((r) => ({ label: r.store, values: [{ series: 'callbacks/s', value: r.load.perSec }] })),
      target: { value: 5_000, label: 'target 5,000/s' },
    },
  };
}
