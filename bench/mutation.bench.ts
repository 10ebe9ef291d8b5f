import { BenchSettings } from './bench.settings';
import { Chart, Section, TargetCheck } from './bench.report';
import { fmt, kib, median, mib } from './bench.stats';
import { ChildHandle, ownCores } from './child.ipc';
import { AUTH_HEADERS, createBody, isFailedCreate } from './gateway.client';
import { LoadResult, runLoad } from './load.runner';

/** An ordinary mobile money account; the stub answers Pending whatever it is. */
const ACCOUNT = '260971234567';
const DIRECT_PATH = '/api/v1/disbursements/mobile-money';

/** Unique referenceIds across the whole run, so neither the provider nor the gateway ever sees a repeat. */
export class ReferenceIds {
  private count = 0;

  constructor(private readonly tag: string) {}

  next(kind: string): string {
    this.count += 1;
    return `${this.tag}-${kind}-${this.count}`;
  }
}

type Kind = 'direct' | 'floor' | 'apollo' | 'durable' | 'hive' | 'gateway';
const KINDS: readonly Kind[] = ['direct', 'floor', 'apollo', 'durable', 'hive', 'gateway'];
const LABELS: Record<Kind, string> = {
  direct: 'direct (provider stub)',
  floor: 'bare-proxy floor',
  apollo: 'Apollo floor',
  durable: 'durable floor',
  hive: 'Hive Gateway (Mesh over OpenAPI)',
  gateway: 'gateway',
};

/** The six processes of part 1: each is measured alone, the stub serves the other five as well. */
export interface MutationTargets {
  stub: ChildHandle;
  floor: ChildHandle;
  apollo: ChildHandle;
  durable: ChildHandle;
  hive: ChildHandle;
  gateway: ChildHandle;
}

function directLoad(stubUrl: string, ids: ReferenceIds, connections: number, seconds: number): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json', 'x-api-key': 'sandbox-key' };
  return runLoad({
    url: stubUrl + DIRECT_PATH,
    connections,
    seconds,
    next: () => ({
      headers,
      body: JSON.stringify({
        referenceId: ids.next('direct'),
        amount: 150.75,
        currency: 'ZMW',
        accountNumber: ACCOUNT,
        narration: 'Bench payout',
      }),
    }),
  });
}

/** The GraphQL create, with the client token, to the gateway or to the floor (which ignores the token). */
export function gatewayLoad(
  url: string,
  ids: ReferenceIds,
  connections: number,
  seconds: number,
  kind = 'gql',
): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json', ...AUTH_HEADERS };
  return runLoad({
    url: `${url}/graphql`,
    connections,
    seconds,
    next: () => ({ headers, body: createBody(ids.next(kind), ACCOUNT) }),
    isFailure: isFailedCreate,
  });
}

/** The mutation Mesh composes from bench/provider.openapi.json: the provider's own fields, the amount a number. */
const HIVE_MUTATION = `mutation Create($input: MobileMoneyDisbursementInput_Input) {
  createMobileMoneyDisbursement(input: $input) { referenceId status paymentType identifier createdAt }
}`;

/** The same create through Hive Gateway, in the schema Mesh composed for it. */
function hiveLoad(url: string, ids: ReferenceIds, connections: number, seconds: number): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json' };
  return runLoad({
    url: `${url}/graphql`,
    connections,
    seconds,
    next: () => ({
      headers,
      body: JSON.stringify({
        query: HIVE_MUTATION,
        variables: {
          input: {
            referenceId: ids.next('hive'),
            amount: 150.75,
            currency: 'ZMW',
            accountNumber: ACCOUNT,
            narration: 'Bench payout',
          },
        },
      }),
    }),
    isFailure: isFailedCreate,
  });
}

function loadOf(
  kind: Kind,
  targets: MutationTargets,
  ids: ReferenceIds,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  if (kind === 'direct') return directLoad(targets.stub.url, ids, connections, seconds);
  if (kind === 'hive') return hiveLoad(targets.hive.url, ids, connections, seconds);
  return gatewayLoad(targets[kind].url, ids, connections, seconds, kind);
}

interface Round {
  kind: Kind;
  label: string;
  load: LoadResult;
  /** CPU time of the measured process (the stub for direct) per answered request. */
  cpuMsPerPayout: number;
  /** Bytes the measured process allocated on its JS heap per answered request. */
  allocatedPerPayout: number;
  loopUtilization: number;
  /** The stub's CPU per request during the floor and gateway rounds: what the provider's side cost. */
  stubCpuMsPerPayout: number;
  loadGenCores: number;
}

export interface MutationOutcome {
  section: Section;
  targets: TargetCheck[];
  chart: Chart;
}

const perPayout = (cpuMs: number, count: number) => (count > 0 ? cpuMs / count : Number.NaN);

async function measured(
  kind: Kind,
  round: number,
  targets: MutationTargets,
  ids: ReferenceIds,
  connections: number,
  seconds: number,
): Promise<Round> {
  const target = kind === 'direct' ? targets.stub : targets[kind];
  const [before, stubBefore] = await Promise.all([target.stats(), targets.stub.stats()]);
  const ownCpu = process.cpuUsage();
  const started = performance.now();
  const load = await loadOf(kind, targets, ids, connections, seconds);
  const loadGenCores = ownCores(ownCpu, performance.now() - started);
  const [after, stubAfter] = await Promise.all([target.stats(), targets.stub.stats()]);
  const active = after.loopActiveMs - before.loopActiveMs;
  const idle = after.loopIdleMs - before.loopIdleMs;
  return {
    kind,
    label: `${round}: ${LABELS[kind]}`,
    load,
    cpuMsPerPayout: perPayout((after.cpuUs - before.cpuUs) / 1000, load.ok),
    allocatedPerPayout: perPayout(after.allocatedBytes - before.allocatedBytes, load.ok),
    loopUtilization: active + idle > 0 ? active / (active + idle) : Number.NaN,
    stubCpuMsPerPayout: perPayout((stubAfter.cpuUs - stubBefore.cpuUs) / 1000, load.ok),
    loadGenCores,
  };
}

const failures = (load: LoadResult) => load.non2xx + load.errors + load.badBodies;

/** Each round runs the six in a different order, so no target always runs first (warmest, or coolest, machine). */
const rotation = (round: number): Kind[] => KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]);

/**
 * Part 1: the same mobile money create straight to the provider stub, through the three floors, Hive
 * Gateway and the gateway, in rotated rounds; medians reported, the gateway's targets against the durable floor.
 */
export async function runMutationBench(
  settings: BenchSettings,
  targets: MutationTargets,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<MutationOutcome> {
  const { rounds, seconds, warmupSeconds, connections } = settings.mutation;
  log(`mutation: warm-up ${warmupSeconds} s each (JIT, pools)`);
  for (const kind of KINDS) await loadOf(kind, targets, ids, connections, warmupSeconds);

  const all: Round[] = [];
  for (let r = 0; r < rounds; r += 1) {
    for (const kind of rotation(r)) {
      log(`mutation: round ${r + 1} ${LABELS[kind]}, ${seconds} s at ${connections} connections`);
      all.push(await measured(kind, r + 1, targets, ids, connections, seconds));
    }
  }
  const peakRss: Record<Kind, number> = {
    direct: (await targets.stub.stats()).maxRssBytes,
    floor: (await targets.floor.stats()).maxRssBytes,
    apollo: (await targets.apollo.stats()).maxRssBytes,
    durable: (await targets.durable.stats()).maxRssBytes,
    hive: (await targets.hive.stats()).maxRssBytes,
    gateway: (await targets.gateway.stats()).maxRssBytes,
  };

  const of = (kind: Kind) => all.filter((r) => r.kind === kind);
  const med = (kind: Kind, pick: (r: Round) => number) => median(of(kind).map(pick));
  const perSec = (kind: Kind) => med(kind, (r) => r.load.perSec);
  const p99 = (kind: Kind) => med(kind, (r) => r.load.p99Ms);
  const cpu = (kind: Kind) => med(kind, (r) => r.cpuMsPerPayout);
  const allocated = (kind: Kind) => med(kind, (r) => r.allocatedPerPayout);
  const vsDirect = perSec('gateway') / perSec('direct');
  const vsFloor = perSec('gateway') / perSec('floor');
  const p99VsFloor = p99('gateway') / p99('floor');
  const vsApollo = perSec('gateway') / perSec('apollo');
  const vsDurable = perSec('gateway') / perSec('durable');
  const cpuVsDurable = cpu('gateway') / cpu('durable');
  const p99VsDurable = p99('gateway') / p99('durable');
  const vsHive = perSec('gateway') / perSec('hive');
  const ratioRow = (floor: Kind) => [
    `${fmt(cpu('gateway') / cpu(floor), 2)}×`,
    `${fmt(perSec('gateway') / perSec(floor), 2)}×`,
    `${fmt(med('gateway', (r) => r.load.p50Ms) / med(floor, (r) => r.load.p50Ms), 2)}×`,
    `${fmt(p99('gateway') / p99(floor), 2)}×`,
    `${fmt(allocated('gateway') / allocated(floor), 2)}×`,
  ];
  const allFailures = all.reduce((sum, r) => sum + failures(r.load), 0);

  const roundRow = (r: Round) => [
    r.label,
    fmt(r.load.perSec, 0),
    fmt(r.load.p50Ms, 2),
    fmt(r.load.p99Ms, 2),
    `${failures(r.load)}`,
    fmt(r.cpuMsPerPayout, 3),
    fmt(kib(r.allocatedPerPayout), 1),
    `${fmt(r.loopUtilization * 100, 0)} %`,
    r.kind === 'direct' ? '–' : fmt(r.stubCpuMsPerPayout, 3),
    fmt(r.loadGenCores, 2),
  ];
  const summaryRow = (kind: Kind) => [
    `**${LABELS[kind]}**`,
    `**${fmt(perSec(kind), 0)}**`,
    fmt(
      med(kind, (r) => r.load.p50Ms),
      2,
    ),
    fmt(p99(kind), 2),
    `${fmt(cpu(kind), 3)} ms`,
    `${fmt(kib(allocated(kind)), 1)} KiB`,
    `${fmt(mib(peakRss[kind]), 0)} MiB`,
  ];

  return {
    section: {
      title: '1. Mutation cost: createMobileMoneyDisbursement vs three floors vs the provider stub',
      tables: [
        {
          title: 'Medians',
          headers: ['target', 'req/s', 'p50 ms', 'p99 ms', 'CPU per payout', 'allocated per payout', 'peak RSS'],
          rows: KINDS.map(summaryRow),
        },
        {
          headers: ['gateway / direct', 'gateway / floor', 'gateway p99 / floor p99'],
          rows: [[`${fmt(vsDirect, 3)}×`, `${fmt(vsFloor, 2)}×`, `${fmt(p99VsFloor, 2)}×`]],
        },
        {
          title: 'Gateway / durable floor, Apollo floor and Hive Gateway (medians of the same rounds)',
          headers: ['against', 'CPU per payout', 'req/s', 'p50', 'p99', 'allocated per payout'],
          rows: [
            [LABELS.durable, ...ratioRow('durable')],
            [LABELS.apollo, ...ratioRow('apollo')],
            [LABELS.hive, ...ratioRow('hive')],
          ],
        },
        {
          title: 'Rounds',
          headers: [
            'round',
            'req/s',
            'p50 ms',
            'p99 ms',
            'failures',
            'CPU ms / payout',
            'KiB allocated / payout',
            'loop busy',
            'stub CPU ms / payout',
            'load generator cores',
          ],
          rows: all.map(roundRow),
        },
      ],
      notes: [
        `${connections} connections (autocannon), ${rounds} rounds × ${seconds} s per target after ${warmupSeconds} s warm-up each; the order rotates every round; every request a mobile money create with a new referenceId.`,
        "direct: a minimal Node stub of the provider (bench/stub.child.ts) answering the create with a Pending record, no sandbox logic. floor: node:http in, one undici POST to the stub, JSON out (bench/floor.child.ts). Apollo floor: node:http in, Apollo Server 5 executeHTTPGraphQLRequest over a one-mutation schema, one undici POST to the stub (bench/apollo.child.ts): what the framework alone costs. durable floor: the Apollo floor plus the least durable work (bench/durable.child.ts, bench/durable.store.ts): a claim row committed before the stub is called, then the answer (payout row, one change-log row, two audit entries: requested, answered), each chained to the merchant's previous hash with SHA-256 and keyed with an HMAC, every write of one event-loop turn in one BEGIN IMMEDIATE … COMMIT on a SQLite file of its own (WAL, synchronous=NORMAL); five statements per create. gateway: its defaults (LOG_LEVEL info, log lines written to /dev/null), a client token (CLIENT_TOKENS), the quota off (CLIENT_RATE_LIMIT_PER_MIN=0), the default store (an embedded SQLite file, new for the run), pointed at the stub. Hive Gateway: the provider's REST API wrapped as a team without this gateway would (bench/hive.child.ts): an OpenAPI description of the create (bench/provider.openapi.json) composed by GraphQL Mesh (@omnigraph/openapi) and served by Hive Gateway's runtime over node:http, its logging off; no auth, store or durable work.",
        "CPU per payout: process.cpuUsage (user + system) of the measured process over the round / answered requests; the stub for direct. Allocated per payout: bytes allocated on the measured process's JS heap over the round (heap in use plus what each collection freed, from v8.GCProfiler; Buffers outside the heap not counted) / answered requests. Peak RSS: getrusage maxRSS over the process life.",
        'All processes share the same cores: the load generator, the stub and the measured process compete, so the ratios say more than the absolute figures.',
        'failures = non-2xx + connection errors + 200s carrying GraphQL errors; ' +
          (allFailures === 0 ? 'none in this run.' : `${allFailures} in this run.`),
      ],
    },
    targets: [
      {
        what: 'req/s, gateway / durable floor',
        target: '≥ 0.45×',
        result: `${fmt(vsDurable, 2)}× (${fmt(perSec('gateway'), 0)} vs ${fmt(perSec('durable'), 0)} req/s; ${fmt(vsApollo, 2)}× the Apollo floor, ${fmt(vsFloor, 2)}× the bare-proxy floor, ${fmt(vsDirect, 3)}× direct)`,
        met: vsDurable >= 0.45,
      },
      {
        what: 'CPU per payout, gateway / durable floor',
        target: '≤ 2.5×',
        result: `${fmt(cpuVsDurable, 2)}× (${fmt(cpu('gateway'), 3)} vs ${fmt(cpu('durable'), 3)} ms)`,
        met: cpuVsDurable <= 2.5,
      },
      {
        what: 'p99, gateway / durable floor',
        target: '≤ 2.5×',
        result: `${fmt(p99VsDurable, 2)}× (${fmt(p99('gateway'), 1)} vs ${fmt(p99('durable'), 1)} ms)`,
        met: p99VsDurable <= 2.5,
      },
      {
        what: 'req/s, gateway / Hive Gateway over the same stub',
        target: '≥ 1.5×',
        result: `${fmt(vsHive, 2)}× (${fmt(perSec('gateway'), 0)} vs ${fmt(perSec('hive'), 0)} req/s; CPU per payout ${fmt(cpu('gateway'), 3)} vs ${fmt(cpu('hive'), 3)} ms)`,
        met: vsHive >= 1.5,
      },
    ],
    chart: {
      title: 'Mutation throughput',
      unit: 'payouts / s',
      groups: KINDS.map((kind) => ({ label: LABELS[kind], values: [{ series: 'req/s', value: perSec(kind) }] })),
      target: { value: perSec('durable') * 0.45, label: 'target 0.45× durable floor' },
    },
  };
}
