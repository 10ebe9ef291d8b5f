import { Client } from 'graphql-ws';
import Redis from 'ioredis';
import { performance } from 'node:perf_hooks';
import { BenchSettings } from './bench.settings';
import { Chart, Section, TargetCheck } from './bench.report';
import { fmt, waitUntil } from './bench.stats';
import { CallbackSigner, newWebhookSecret } from './callback.signer';
import { ChildStartError, GatewayStarter, ownCores, Usage, usageBetween } from './child.ipc';
import { CallbackTarget, createPayouts, NEVER_SETTLES_ACCOUNT, subscriberClient } from './gateway.client';
import { LoadResult, runLoad } from './load.runner';
import { ReferenceIds } from './mutation.bench';
import { countClientCommands, redisCommandCount, startOwnRedis } from './redis.server';

interface IngestRow {
  store: string;
  load: LoadResult;
  cpuUsPerCallback: number;
  use: Usage;
  loadGenCores: number;
  published: number;
  /** Creates per second while the payouts were prepared (GraphQL, through the gateway, to the sandbox). */
  createsPerSec: number;
  /** Redis commands executed per create and per callback, scripts' own included (INFO commandstats delta); undefined in memory. */
  commandsPerCreate?: number;
  commandsPerCallback?: number;
  /** Commands this gateway sent per create and per callback (MONITOR, a sample after the measured phases): its round trips. */
  roundTripsPerCreate?: number;
  roundTripsPerCallback?: number;
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
  countCommands?: () => Promise<number>,
  redisUrl?: string,
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
    const commandsBeforeCreates = await countCommands?.();
    const createsStarted = performance.now();
    await createPayouts(gateway.url, refs, NEVER_SETTLES_ACCOUNT, settings.createConcurrency);
    const createsPerSec = (total * 1000) / (performance.now() - createsStarted);
    const commandsAfterCreates = await countCommands?.();
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
    const commandsBefore = await countCommands?.();
    const published = watcher.count();
    const ownCpu = process.cpuUsage();
    const started = performance.now();
    const load = await runLoad({ url, connections, amount: callbacks, next });
    const loadGenCores = ownCores(ownCpu, performance.now() - started);
    const use = usageBetween(before, await gateway.stats());
    const commandsAfter = await countCommands?.();
    const per = (from: number | undefined, to: number | undefined, count: number) =>
      from === undefined || to === undefined || count === 0 ? undefined : (to - from) / count;
    if (streamLive) await waitUntil(() => watcher.count() - published >= load.ok, 10_000);
    // Round trips, counted apart from the measured phases (MONITOR slows Redis): 200 creates, then 200 callbacks to them.
    let roundTripsPerCreate: number | undefined;
    let roundTripsPerCallback: number | undefined;
    if (redisUrl) {
      const sample = Array.from({ length: 200 }, () => ids.next(`trips-${store}`));
      const creates = await countClientCommands(redisUrl);
      await createPayouts(gateway.url, sample, NEVER_SETTLES_ACCOUNT, 8);
      roundTripsPerCreate = (await creates.stop()) / sample.length;
      const callbacks = await countClientCommands(redisUrl);
      for (const ref of sample) await probe.post(signer.successful(ref, NEVER_SETTLES_ACCOUNT));
      roundTripsPerCallback = (await callbacks.stop()) / sample.length;
    }
    return {
      store,
      load,
      cpuUsPerCallback: load.ok > 0 ? (use.cpuMs * 1000) / load.ok : Number.NaN,
      use,
      loadGenCores,
      published: watcher.count() - published,
      createsPerSec,
      commandsPerCreate: per(commandsBeforeCreates, commandsAfterCreates, total),
      commandsPerCallback: per(commandsBefore, commandsAfter, load.ok),
      roundTripsPerCreate,
      roundTripsPerCallback,
    };
  } finally {
    await watcher.client.dispose();
    await probe.close();
    await gateway.close();
  }
}

/** Removes what the Redis run stored under its own prefix; never touches other keys. */
async function deleteKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    let deleted = 0;
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = nextCursor;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

export interface IngestOutcome {
  section: Section;
  targets: TargetCheck[];
  chart: Chart;
}

/** Part 3: signed callbacks per second one gateway verifies, applies and publishes; in memory, then Redis when REDIS_URL is set. */
export async function runIngestBench(
  settings: BenchSettings,
  startGateway: GatewayStarter,
  ids: ReferenceIds,
  tag: string,
  log: (line: string) => void,
): Promise<IngestOutcome> {
  const rows: IngestRow[] = [await ingestRun('memory', {}, settings, startGateway, ids, log)];
  const notes: string[] = [];
  // Without REDIS_URL the bench starts a redis-server of its own, so Redis mode is always measured and its command counts are ours alone.
  const own = settings.redisUrl ? undefined : await startOwnRedis();
  const redisUrl = settings.redisUrl ?? own?.url;
  if (redisUrl) {
    notes.push(
      own
        ? 'Redis: a redis-server the bench started on a free port (no persistence), used by nothing else.'
        : 'Redis: REDIS_URL; if others use that server, its command counts include their commands.',
    );
    const prefix = `bench-${tag}:`;
    let ran = false;
    try {
      rows.push(
        await ingestRun(
          'redis',
          { BENCH_REDIS_URL: redisUrl, BENCH_REDIS_KEY_PREFIX: prefix },
          settings,
          startGateway,
          ids,
          log,
          () => redisCommandCount(redisUrl),
          redisUrl,
        ),
      );
      ran = true;
    } catch (error) {
      if (!(error instanceof ChildStartError)) throw error;
      log(`skipped: Redis store not available (${error.message})`);
      notes.push(`skipped: Redis store not available (the gateway refused to start: "${error.message}").`);
    } finally {
      const deleted = await deleteKeys(redisUrl, prefix).catch((error: unknown) => {
        notes.push(`could not clean Redis keys ${prefix}*: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      if (ran && deleted === 0) {
        notes.push(
          `Redis: no key under REDIS_KEY_PREFIX=${prefix} afterwards: the gateway did not use that prefix, so what it stored is under its own prefix and was left alone.`,
        );
      } else if (deleted !== undefined && deleted > 0) {
        notes.push(`Redis: REDIS_KEY_PREFIX=${prefix}; its ${fmt(deleted, 0)} keys were deleted afterwards.`);
      }
      await own?.close();
    }
  } else {
    notes.push('Redis: not run (no redis-server on PATH; set REDIS_URL to include it).');
  }

  for (const r of rows) {
    if (r.published < r.load.ok)
      notes.push(
        `${r.store}: ${fmt(r.load.ok - r.published, 0)} callbacks were acknowledged but never reached the stream subscriber.`,
      );
  }
  const memory = rows[0];
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
            'Redis round trips / create',
            'Redis round trips / callback',
            'Redis commands run / create (scripts included)',
            'Redis commands run / callback',
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
            r.roundTripsPerCreate === undefined ? '–' : fmt(r.roundTripsPerCreate, 2),
            r.roundTripsPerCallback === undefined ? '–' : fmt(r.roundTripsPerCallback, 2),
            r.commandsPerCreate === undefined ? '–' : fmt(r.commandsPerCreate, 2),
            r.commandsPerCallback === undefined ? '–' : fmt(r.commandsPerCallback, 2),
          ]),
        },
      ],
      notes: [
        `Each callback is a distinct payout created beforehand through the gateway (Pending at the sandbox, account …222), signed with Standard Webhooks and turned Successful: every one is a real change that is stored and published. ${settings.ingest.connections} connections, ${fmt(settings.ingest.callbacks, 0)} measured after ${fmt(settings.ingest.warmupCallbacks, 0)} warm-up.`,
        'One subscriber on the merchant stream (disbursementUpdates) counts what was published.',
        `creates/s: the GraphQL creates that prepare the payouts, ${settings.createConcurrency} at a time, through the gateway to the sandbox (whose own cost is in the figure). Redis round trips: the commands the gateway sent (MONITOR, scripts' inner commands left out) over 200 more creates and then 200 callbacks, after the measured phases, with nothing else running; each is one round trip unless pipelined. Commands run: INFO commandstats over the creates or the measured callbacks, the commands scripts run inside Redis included, divided by their number.`,
        ...notes,
      ],
    },
    targets: [
      {
        what: 'callbacks per second in memory',
        target: '≥ 10,000',
        result: fmt(memory.load.perSec, 0),
        met: memory.load.perSec >= 10_000,
      },
      ...rows
        .filter((r) => r.store === 'redis')
        .map((r) => ({
          what: 'Redis mode: callbacks/s and creates/s, round trips per create',
          target: 'reported',
          result: `${fmt(r.load.perSec, 0)} callbacks/s, ${fmt(r.createsPerSec, 0)} creates/s, ${r.roundTripsPerCreate === undefined ? '–' : fmt(r.roundTripsPerCreate, 2)} round trips / create`,
          met: true,
        })),
    ],
    chart: {
      title: 'Callback ingest',
      unit: 'callbacks / s',
      groups: rows.map((r) => ({ label: r.store, values: [{ series: 'callbacks/s', value: r.load.perSec }] })),
      target: { value: 10_000, label: 'target 10,000/s' },
    },
  };
}
