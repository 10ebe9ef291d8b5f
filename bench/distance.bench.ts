import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { BenchSettings } from './bench.settings';
import { Section, TargetCheck } from './bench.report';
import { fmt } from './bench.stats';
import { ChildHandle, GatewayStarter } from './child.ipc';
import { startDelayProxy } from './delay.proxy';
import { BENCH_CLIENT_TOKEN, createBody, isFailedCreate } from './gateway.client';
import { ReferenceIds } from './mutation.bench';
import { serverBinaries, startPostgresServer } from '../test/support/postgres.server';

/** Merchants every gateway of this part serves (BENCH_MERCHANTS): the eight-merchant rows use all. */
const MERCHANTS = 8;
const CLIENTS = 64;
/** Each way between the gateway and PostgreSQL: availability zones apart. */
const DISTANCE_MS = 1;
/** The figure before one-round-trip writes: 64 clients of one merchant, one replica, no delay. */
const BEFORE_PER_SEC = 239;

/** Merchant i's client token (gateway.child.ts writes the same into its MERCHANTS_FILE). */
const tokenOf = (merchant: number) => `${BENCH_CLIENT_TOKEN}-m${merchant}`;

interface DistanceRow {
  delayMs: number;
  replicas: number;
  merchants: number;
  perSec: number;
  p99Ms: number;
  roundTripsPerCreate: number;
  failed: number;
}

/**
 * CLIENTS clients create payouts for `seconds`, client i on gateway i mod replicas for merchant
 * i mod merchants: creates per second, p99, and the database round trips per create the gateways
 * counted meanwhile (their background polls included).
 */
async function drive(
  gateways: ChildHandle[],
  merchants: number,
  seconds: number,
  ids: ReferenceIds,
): Promise<Omit<DistanceRow, 'delayMs' | 'replicas' | 'merchants'>> {
  const pools = gateways.map((g) => new Pool(g.url, { connections: CLIENTS }));
  const before = await Promise.all(gateways.map((g) => g.stats()));
  const latencies: number[] = [];
  let failed = 0;
  const until = performance.now() + seconds * 1000;
  const client = async (i: number) => {
    const pool = pools[i % pools.length];
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${tokenOf(i % merchants)}` };
    while (performance.now() < until) {
      const started = performance.now();
      const res = await pool.request({
        method: 'POST',
        path: '/graphql',
        headers,
        body: createBody(ids.next('distance'), '260971234567'),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || isFailedCreate(text)) failed += 1;
      else latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  const elapsed = performance.now() - started;
  const after = await Promise.all(gateways.map((g) => g.stats()));
  const queries = after.reduce((sum, s, i) => sum + s.databaseQueries - before[i].databaseQueries, 0);
  latencies.sort((a, b) => a - b);
  return {
    perSec: (latencies.length * 1000) / elapsed,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN,
    roundTripsPerCreate: queries / Math.max(1, latencies.length),
    failed,
  };
}

/**
 * Part 6: creates per second on PostgreSQL as the distance to it grows from loopback to 1 ms each
 * way (a delaying proxy), for one busy merchant and for eight, on one replica and on two.
 */
export async function runDistanceBench(
  settings: BenchSettings,
  startGateway: GatewayStarter,
  stubUrl: string,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<{ section: Section; targets: TargetCheck[] }> {
  const title = '6. Distance to PostgreSQL: one busy merchant, creates per second';
  const own = settings.databaseUrl || !serverBinaries() ? undefined : await startPostgresServer();
  const url = settings.databaseUrl ?? own?.url;
  if (!url)
    return {
      section: { title, tables: [], notes: ['not run: no PostgreSQL server binaries and no BENCH_DATABASE_URL'] },
      targets: [],
    };
  const seconds = settings.quick ? 3 : 6;
  const rows: DistanceRow[] = [];
  try {
    const target = new URL(url);
    for (const delayMs of [0, DISTANCE_MS]) {
      const proxy = await startDelayProxy({ host: target.hostname, port: Number(target.port) }, delayMs);
      try {
        for (const replicas of [1, 2]) {
          const gateways: ChildHandle[] = [];
          try {
            // One after the other: the first migrates, the next finds nothing to do.
            for (let r = 0; r < replicas; r += 1)
              gateways.push(
                await startGateway({
                  BENCH_UPSTREAM_URL: stubUrl,
                  BENCH_DATABASE_URL: proxy.via(url),
                  BENCH_MERCHANTS: String(MERCHANTS),
                }),
              );
            await drive(gateways, MERCHANTS, 1, ids);
            for (const merchants of [1, MERCHANTS]) {
              log(`distance: ${delayMs} ms each way, ${replicas} replica(s), ${merchants} merchant(s)`);
              rows.push({ delayMs, replicas, merchants, ...(await drive(gateways, merchants, seconds, ids)) });
            }
          } finally {
            await Promise.all(gateways.map((g) => g.close()));
          }
        }
      } finally {
        await proxy.close();
      }
    }
  } finally {
    await own?.destroy();
  }
  const find = (delayMs: number, replicas: number, merchants: number) =>
    rows.find((r) => r.delayMs === delayMs && r.replicas === replicas && r.merchants === merchants)!;
  const near = find(0, 1, 1);
  const far = find(DISTANCE_MS, 1, 1);
  return {
    section: {
      title,
      tables: [
        {
          headers: ['each way', 'replicas', 'merchants', 'creates/s', 'p99 ms', 'round trips / create', 'failed'],
          rows: rows.map((r) => [
            `${r.delayMs} ms`,
            `${r.replicas}`,
            `${r.merchants}`,
            fmt(r.perSec, 0),
            fmt(r.p99Ms, 1),
            fmt(r.roundTripsPerCreate, 2),
            `${r.failed}`,
          ]),
        },
      ],
      notes: [
        `${CLIENTS} clients creating payouts for ${seconds} s each row (after a 1 s warm-up), client i on replica i mod replicas for merchant i mod merchants; the provider is the stub. Every replica reaches PostgreSQL (its own server, fsync off) through a TCP proxy that holds each chunk that long each way, 0 ms being the same path without the distance.`,
        'Round trips: the queries the replicas sent over the row, divided by its creates (background polls included).',
      ],
    },
    targets: [
      {
        what: 'PostgreSQL, one merchant, 64 clients: creates/s with 1 ms each way over none',
        target: '≥ 0.7x',
        result: `${fmt(far.perSec / near.perSec, 2)}x (${fmt(far.perSec, 0)} vs ${fmt(near.perSec, 0)}/s)`,
        met: far.perSec >= 0.7 * near.perSec,
      },
      {
        what: 'PostgreSQL, one merchant, 64 clients, no delay: creates/s over the 239/s before',
        target: '≥ 4x',
        result: `${fmt(near.perSec / BEFORE_PER_SEC, 2)}x (${fmt(near.perSec, 0)}/s)`,
        met: near.perSec >= 4 * BEFORE_PER_SEC,
      },
    ],
  };
}
