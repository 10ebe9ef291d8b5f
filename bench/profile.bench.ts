import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BenchSettings, PACKAGE_ROOT } from './bench.settings';
import { Section } from './bench.report';
import { fmt } from './bench.stats';
import { GatewayStarter, Usage, usageBetween } from './child.ipc';
import { gatewayLoad, ReferenceIds } from './mutation.bench';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

/** V8's format: timestamps in µs of the monotonic clock, one node id per sample. */
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function isCpuProfile(value: unknown): value is CpuProfile {
  const v = value as Partial<CpuProfile> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.nodes) &&
    Array.isArray(v.samples) &&
    Array.isArray(v.timeDeltas)
  );
}

const ROOT_URL = pathToFileURL(PACKAGE_ROOT).href + '/';

/** Where a function lives, short: src/…, a package name, node core, or V8's own pseudo-frames. */
function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return /^\(.*\)$/.test(functionName) ? functionName : 'native';
  if (url.startsWith('node:'))
    return `node core (${
      url
        .slice(5)
        .replace(/^internal\//, '')
        .split('/')[0]
    })`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.includes('/dist-bench/src/')) return 'gateway (src/)';
  if (url.includes('/dist-bench/bench/')) return 'bench child';
  return url;
}

function locationOf(frame: CallFrame): string {
  if (frame.url === '') return '';
  const path = frame.url.startsWith(ROOT_URL) ? frame.url.slice(ROOT_URL.length) : frame.url;
  return `${path.replace(/^.*\/node_modules\//, '')}:${frame.lineNumber + 1}`;
}

interface SelfTime {
  name: string;
  location: string;
  ms: number;
}

/** Monotonic clock in µs: the clock V8 stamps profile samples with, shared by every process on the machine. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time per function (summed over every call-tree node where it appears) and per package,
 * counting only samples taken between `fromUs` and `toUs`: the measured round, not start-up or warm-up.
 * Each sample is charged the time until the next one.
 */
function selfTimes(profile: CpuProfile, fromUs: number, toUs: number) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, SelfTime>();
  const packages = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i];
    const ms = (i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : profile.endTime - at) / 1000;
    const frame = nodes.get(profile.samples[i])?.callFrame;
    if (at < fromUs || at > toUs || !frame || ms <= 0) continue;
    totalMs += ms;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    const name = frame.functionName || '(anonymous)';
    const location = locationOf(frame);
    const key = `${name}\u0000${location}`;
    const entry = byFunction.get(key) ?? { name, location, ms: 0 };
    entry.ms += ms;
    byFunction.set(key, entry);
    const pkg = packageOf(frame);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
  }
  return { functions: [...byFunction.values()].sort((a, b) => b.ms - a.ms), packages, totalMs, idleMs };
}

/**
 * Part 4 (BENCH_PROFILE=1): one gateway mutation round under --cpu-prof; the profile is
 * written into `dir` when the child exits, then read back for self time.
 */
export async function runProfile(
  settings: BenchSettings,
  startGateway: GatewayStarter,
  ids: ReferenceIds,
  dir: string,
  log: (line: string) => void,
): Promise<Section> {
  await mkdir(dir, { recursive: true });
  // Only the latest profile is kept, so the directory never grows run after run.
  for (const file of await readdir(dir)) if (file.endsWith('.cpuprofile')) await rm(join(dir, file));
  const { seconds, warmupSeconds, connections } = settings.mutation;
  const gateway = await startGateway({}, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  log(`profile: gateway ${gateway.pid} under --cpu-prof, ${warmupSeconds} s warm-up then ${seconds} s of mutations`);
  let perSec: number;
  let fromUs: number;
  let toUs: number;
  let use: Usage;
  try {
    await gatewayLoad(gateway.url, ids, connections, warmupSeconds);
    const before = await gateway.stats();
    fromUs = monotonicUs();
    perSec = (await gatewayLoad(gateway.url, ids, connections, seconds)).perSec;
    toUs = monotonicUs();
    use = usageBetween(before, await gateway.stats());
  } finally {
    await gateway.close();
  }
  const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${gateway.pid}.`));
  if (!file) throw new Error(`no .cpuprofile from gateway ${gateway.pid} in ${dir}`);
  const parsed: unknown = JSON.parse(await readFile(join(dir, file), 'utf8'));
  if (!isCpuProfile(parsed)) throw new Error(`${file} is not a V8 CPU profile`);
  const { functions, packages, totalMs, idleMs } = selfTimes(parsed, fromUs, toUs);
  if (totalMs === 0) throw new Error(`${file} has no samples inside the measured round`);
  const busyMs = totalMs - idleMs;
  const share = (ms: number) => `${fmt((ms / busyMs) * 100, 1)} %`;

  return {
    title: '4. CPU profile of the mutation path (gateway process)',
    tables: [
      {
        title: 'Top 15 functions by self time',
        headers: ['#', 'function', 'where', 'self ms', 'of busy time'],
        rows: functions
          .slice(0, 15)
          .map((f, i) => [`${i + 1}`, `\`${f.name}\``, f.location, fmt(f.ms, 0), share(f.ms)]),
      },
      {
        title: 'Self time by package',
        headers: ['package', 'self ms', 'of busy time'],
        rows: [...packages.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15)
          .map(([pkg, ms]) => [pkg, fmt(ms, 0), share(ms)]),
      },
    ],
    notes: [
      `Profile ${relative(PACKAGE_ROOT, join(dir, file))}, counted over the measured ${seconds} s round only (start-up and warm-up left out): ${fmt(busyMs / 1000, 1)} s busy, ${fmt((idleMs / totalMs) * 100, 0)} % idle; ${fmt(perSec, 0)} payouts/s while profiled (the profiler slows it).`,
      '"native" is code with no script URL: V8 builtins (JSON, RegExp, Map…) and C++ bindings such as a socket `writev`.',
      `Samples are taken on a wall clock: time the gateway spent waiting for a core while inside a system call is charged to that call, so on a busy machine \`writev\` looks bigger than its CPU cost. getrusage for the same round: ${fmt(use.loopUtilization * 100, 0)} % loop busy, ${fmt(use.kernelShare * 100, 0)} % of the gateway's CPU time in the kernel.`,
      `Self time of the gateway's own code (src/): ${share(packages.get('gateway (src/)') ?? 0)}; garbage collector: ${share(packages.get('(garbage collector)') ?? 0)}.`,
    ],
  };
}
