import { BenchSettings } from './bench.settings';
import { Chart, Section, TargetCheck } from './bench.report';
import { fmt, median, mib } from './bench.stats';
import { ChildHandle, ownCores, ProcessStats, Usage, usageBetween } from './child.ipc';
import { createBody, isFailedCreate } from './gateway.client';
import { LoadResult, runLoad } from './load.runner';

/** An ordinary ending: created Pending, and the sandbox (settleMs at its maximum) never settles it during the run. */
const ACCOUNT = '260971234567';
const DIRECT_PATH = '/api/v1/disbursements/mobile-money';
/** Same header the gateway sends; never called back during the run. */
const DUMMY_CALLBACK_URL = 'http://127.0.0.1:9/callbacks/bench';

/** Unique referenceIds across the whole run, so neither the sandbox nor the gateway ever sees a repeat. */
export class ReferenceIds {
  private count = 0;

  constructor(private readonly tag: string) {}

  next(kind: string): string {
    this.count += 1;
    return `${this.tag}-${kind}-${this.count}`;
  }
}

function directLoad(sandboxUrl: string, ids: ReferenceIds, connections: number, seconds: number): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json', 'x-api-key': 'sandbox-key', callbackurl: DUMMY_CALLBACK_URL };
  return runLoad({
    url: sandboxUrl + DIRECT_PATH,
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

export function gatewayLoad(gatewayUrl: string, ids: ReferenceIds, connections: number, seconds: number): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json' };
  return runLoad({
    url: `${gatewayUrl}/graphql`,
    connections,
    seconds,
    next: () => ({ headers, body: createBody(ids.next('gql'), ACCOUNT) }),
    isFailure: isFailedCreate,
  });
}

interface Round {
  label: string;
  load: LoadResult;
  sandboxCpuMsPer1k: number;
  /** Cores the load generator (this process) kept busy. */
  loadGenCores: number;
  gateway?: { cpuMsPer1k: number; kernelShare: number; loopUtilization: number };
}

export interface MutationOutcome {
  section: Section;
  targets: TargetCheck[];
  chart: Chart;
}

const perThousand = (cpuMs: number, count: number) => (count > 0 ? (cpuMs / count) * 1000 : Number.NaN);

async function measured(
  label: string,
  sandbox: ChildHandle,
  gateway: ChildHandle | undefined,
  run: () => Promise<LoadResult>,
): Promise<Round> {
  const sandboxBefore = await sandbox.stats();
  const gatewayBefore = await gateway?.stats();
  const ownCpu = process.cpuUsage();
  const started = performance.now();
  const load = await run();
  const wallMs = performance.now() - started;
  const loadGenCores = ownCores(ownCpu, wallMs);
  const sandboxUse = usageBetween(sandboxBefore, await sandbox.stats());
  let gatewayUse: Usage | undefined;
  if (gateway && gatewayBefore) gatewayUse = usageBetween(gatewayBefore, await gateway.stats());
  return {
    label,
    load,
    sandboxCpuMsPer1k: perThousand(sandboxUse.cpuMs, load.ok),
    loadGenCores,
    gateway: gatewayUse && {
      cpuMsPer1k: perThousand(gatewayUse.cpuMs, load.ok),
      kernelShare: gatewayUse.kernelShare,
      loopUtilization: gatewayUse.loopUtilization,
    },
  };
}

function failures(load: LoadResult): number {
  return load.non2xx + load.errors + load.badBodies;
}

/** Part 1: the same create straight to the stub (A) and through the gateway (B), alternating, medians reported. */
export async function runMutationBench(
  settings: BenchSettings,
  sandbox: ChildHandle,
  gateway: ChildHandle,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<MutationOutcome> {
  const { rounds, seconds, warmupSeconds, connections } = settings.mutation;
  log(`mutation: warm-up ${warmupSeconds} s each (JIT, pools)`);
  await directLoad(sandbox.url, ids, connections, warmupSeconds);
  const warm = await gatewayLoad(gateway.url, ids, connections, warmupSeconds);
  let stored = warm.ok;

  const direct: Round[] = [];
  const viaGateway: Round[] = [];
  for (let r = 1; r <= rounds; r += 1) {
    log(`mutation: round A${r} direct, ${seconds} s at ${connections} connections`);
    direct.push(await measured(`A${r} direct`, sandbox, undefined, () => directLoad(sandbox.url, ids, connections, seconds)));
    log(`mutation: round B${r} gateway`);
    const b = await measured(`B${r} gateway`, sandbox, gateway, () => gatewayLoad(gateway.url, ids, connections, seconds));
    stored += b.load.ok;
    viaGateway.push(b);
  }
  const final: ProcessStats = await gateway.stats();

  const directPerSec = median(direct.map((r) => r.load.perSec));
  const gatewayPerSec = median(viaGateway.map((r) => r.load.perSec));
  const ratio = gatewayPerSec / directPerSec;
  const cpuMsPer1k = median(viaGateway.map((r) => r.gateway?.cpuMsPer1k ?? Number.NaN));
  const kernelShare = median(viaGateway.map((r) => r.gateway?.kernelShare ?? Number.NaN));
  const allFailures = [...direct, ...viaGateway].reduce((sum, r) => sum + failures(r.load), 0);

  const row = (r: Round) => [
    r.label,
    fmt(r.load.perSec, 0),
    fmt(r.load.p50Ms, 2),
    fmt(r.load.p99Ms, 2),
    `${failures(r.load)}`,
    r.gateway ? fmt(r.gateway.cpuMsPer1k, 0) : '–',
    r.gateway ? `${fmt(r.gateway.loopUtilization * 100, 0)} %` : '–',
    fmt(r.sandboxCpuMsPer1k, 0),
    fmt(r.loadGenCores, 2),
  ];
  const medianRow = (label: string, rs: Round[]) => [
    `**${label}**`,
    `**${fmt(median(rs.map((r) => r.load.perSec)), 0)}**`,
    fmt(median(rs.map((r) => r.load.p50Ms)), 2),
    fmt(median(rs.map((r) => r.load.p99Ms)), 2),
    `${rs.reduce((s, r) => s + failures(r.load), 0)}`,
    rs[0]?.gateway ? fmt(median(rs.map((r) => r.gateway?.cpuMsPer1k ?? Number.NaN)), 0) : '–',
    rs[0]?.gateway ? `${fmt(median(rs.map((r) => (r.gateway?.loopUtilization ?? Number.NaN) * 100)), 0)} %` : '–',
    fmt(median(rs.map((r) => r.sandboxCpuMsPer1k)), 0),
    fmt(median(rs.map((r) => r.loadGenCores)), 2),
  ];
  const ordered = direct.flatMap((a, i) => [a, viaGateway[i]]);

  return {
    section: {
      title: '1. Mutation cost: createMobileMoneyDisbursement vs the provider REST call',
      tables: [
        {
          headers: [
            'round',
            'req/s',
            'p50 ms',
            'p99 ms',
            'failures',
            'gateway CPU ms / 1,000',
            'gateway loop busy',
            'sandbox CPU ms / 1,000',
            'load generator cores',
          ],
          rows: [...ordered.map(row), medianRow('median direct', direct), medianRow('median gateway', viaGateway)],
        },
        {
          headers: [
            'gateway / direct throughput',
            'gateway CPU per payout',
            'of which in the kernel',
            'gateway peak RSS',
            'payouts stored by the gateway',
          ],
          rows: [
            [
              `${fmt(ratio, 2)}×`,
              `${fmt(cpuMsPer1k / 1000, 3)} ms`,
              `${fmt(kernelShare * 100, 0)} %`,
              `${fmt(mib(final.maxRssBytes), 0)} MiB`,
              fmt(stored, 0),
            ],
          ],
        },
      ],
      notes: [
        `${connections} connections, ${rounds} × ${seconds} s per side after ${warmupSeconds} s warm-up each; rounds alternate A/B; every request a new referenceId.`,
        'Three processes on the same cores: load generator (autocannon, this process), gateway (child), sandbox provider stub (child, settleMs at its maximum so it never calls back).',
        'failures = non-2xx + connection errors + 200s carrying GraphQL errors; ' +
          (allFailures === 0 ? 'none in this run.' : `${allFailures} in this run.`),
        'Peak RSS is getrusage maxRSS of the gateway process over its life (it keeps every payout it created in memory).',
      ],
    },
    targets: [
      {
        what: 'gateway throughput vs direct REST',
        target: '≥ 0.25×',
        result: `${fmt(ratio, 2)}× (${fmt(gatewayPerSec, 0)} vs ${fmt(directPerSec, 0)} req/s)`,
        met: ratio >= 0.25,
      },
      { what: 'gateway CPU per payout', target: '≤ 0.1 ms', result: `${fmt(cpuMsPer1k / 1000, 3)} ms`, met: cpuMsPer1k <= 100 },
    ],
    chart: {
      title: 'Mutation throughput',
      unit: 'payouts / s',
      groups: [
        { label: 'direct REST', values: [{ series: 'req/s', value: directPerSec }] },
        { label: 'through gateway', values: [{ series: 'req/s', value: gatewayPerSec }] },
      ],
      target: { value: directPerSec * 0.25, label: 'target 0.25× direct' },
    },
  };
}
