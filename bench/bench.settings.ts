import { join } from 'node:path';

/** The package root: compiled bench files run from dist-bench/bench/. */
export const PACKAGE_ROOT = join(__dirname, '..', '..');
export const RESULTS_DIR = join(PACKAGE_ROOT, 'bench', 'results');

/** The parts a run can be limited to: `npm run bench -- <part>`. */
export type BenchPart = 'mutation' | 'fanout' | 'ingest' | 'memory' | 'distance';
const PARTS: readonly BenchPart[] = ['mutation', 'fanout', 'ingest', 'memory', 'distance'];

/**
 * How much each part does. BENCH_QUICK=1 shrinks everything to a smoke run of about 40 s;
 * BENCH_PROFILE=1 adds the CPU profile; BENCH_FANOUT_RATE sets the fan-out callback rate (default 2,000/s);
 * BENCH_MEMORY_PAYOUTS the payouts of `npm run bench -- memory` (default 1,000,000), or BENCH_MEMORY_SECONDS
 * creates for that long instead; BENCH_GATEWAY_NODE_FLAGS its gateway's V8 flags.
 */
export interface BenchSettings {
  quick: boolean;
  /**
   * `npm run bench -- <part>`: that part alone, written to bench/results/<part>.md (mutation with the
   * profile when asked); undefined: every part but memory, written to latest.md. The memory part runs only when named.
   */
  only?: BenchPart;
  profile: boolean;
  /** BENCH_DATABASE_URL: a PostgreSQL server for the PostgreSQL rows instead of one the bench starts. */
  databaseUrl?: string;
  /** The whole run is stopped (exit 1) past this, whatever hangs. */
  deadlineMs: number;
  mutation: { rounds: number; seconds: number; warmupSeconds: number; connections: number };
  fanout: {
    counts: number[];
    callbacksPerSec: number;
    /** Subscribers opened at once; bounded so loopback is never SYN-flooded. */
    connectBatch: number;
    streamSubscribers: number;
    streamCallbacks: number;
    streamCallbacksPerSec: number;
  };
  ingest: { callbacks: number; warmupCallbacks: number; connections: number };
  /** Part 5 (`npm run bench -- memory`): payouts created, and how often RSS is sampled on the way. */
  memory: {
    payouts: number;
    /** BENCH_MEMORY_SECONDS: creates at full speed for this long instead of a number of payouts. */
    seconds?: number;
    sampleEvery: number;
    connections: number;
    /** BENCH_GATEWAY_NODE_FLAGS: V8 flags for the gateway of the memory run, e.g. --heap-growing-percent=20. */
    nodeFlags: string[];
  };
  /** Concurrency of the GraphQL creates that prepare payouts for parts 2 and 3. */
  createConcurrency: number;
}

export function settingsFrom(env: NodeJS.ProcessEnv, args: readonly string[]): BenchSettings {
  const quick = env.BENCH_QUICK === '1';
  return {
    quick,
    only: PARTS.find((part) => args.includes(part)),
    profile: env.BENCH_PROFILE === '1',
    databaseUrl: env.BENCH_DATABASE_URL || undefined,
    // A million creates take a quarter of an hour or more on two cores.
    deadlineMs: quick ? 6 * 60_000 : args.includes('memory') ? 60 * 60_000 : 15 * 60_000,
    mutation: quick
      ? { rounds: 1, seconds: 3, warmupSeconds: 1, connections: 50 }
      : { rounds: 3, seconds: 5, warmupSeconds: 2, connections: 50 },
    fanout: {
      counts: quick ? [1_000] : [1_000, 5_000, 10_000],
      callbacksPerSec: Number(env.BENCH_FANOUT_RATE) > 0 ? Number(env.BENCH_FANOUT_RATE) : 2_000,
      connectBatch: 250,
      streamSubscribers: 1_000,
      streamCallbacks: quick ? 20 : 100,
      streamCallbacksPerSec: 10,
    },
    ingest: quick
      ? { callbacks: 5_000, warmupCallbacks: 1_000, connections: 32 }
      : { callbacks: 30_000, warmupCallbacks: 3_000, connections: 32 },
    memory: {
      payouts: Number(env.BENCH_MEMORY_PAYOUTS) > 0 ? Number(env.BENCH_MEMORY_PAYOUTS) : quick ? 20_000 : 1_000_000,
      seconds: Number(env.BENCH_MEMORY_SECONDS) > 0 ? Number(env.BENCH_MEMORY_SECONDS) : undefined,
      sampleEvery: quick ? 5_000 : 100_000,
      connections: 50,
      nodeFlags: (env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter((f) => f !== ''),
    },
    createConcurrency: 64,
  };
}

/** The command line that reproduces this run, for the report. */
export function commandOf(settings: BenchSettings): string {
  const vars = [
    settings.quick ? 'BENCH_QUICK=1' : '',
    settings.profile ? 'BENCH_PROFILE=1' : '',
    settings.databaseUrl ? 'BENCH_DATABASE_URL=…' : '',
    settings.fanout.callbacksPerSec === 2_000 ? '' : `BENCH_FANOUT_RATE=${settings.fanout.callbacksPerSec}`,
    settings.only === 'memory' && settings.memory.seconds !== undefined
      ? `BENCH_MEMORY_SECONDS=${settings.memory.seconds}`
      : '',
    settings.only === 'memory' && settings.memory.seconds === undefined && settings.memory.payouts !== 1_000_000
      ? `BENCH_MEMORY_PAYOUTS=${settings.memory.payouts}`
      : '',
    settings.only === 'memory' && settings.memory.nodeFlags.length > 0
      ? `BENCH_GATEWAY_NODE_FLAGS='${settings.memory.nodeFlags.join(' ')}'`
      : '',
  ].filter((v) => v !== '');
  return [...vars, `npm run bench${settings.only ? ` -- ${settings.only}` : ''}`].join(' ');
}
