import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { BenchPart, commandOf, RESULTS_DIR, settingsFrom } from './bench.settings';
import {
  Chart,
  chartsSvg,
  machineTable,
  markdownTable,
  Section,
  sectionMarkdown,
  TargetCheck,
  targetsTable,
  writeReport,
} from './bench.report';
import { GatewayStarter, startChild } from './child.ipc';
import { runFanoutBench } from './fanout.bench';
import { runDistanceBench } from './distance.bench';
import { runIngestBench } from './ingest.bench';
import { runMemoryBench } from './memory.bench';
import { ReferenceIds, runMutationBench } from './mutation.bench';
import { runProfile } from './profile.bench';

const GATEWAY_CHILD = join(__dirname, 'gateway.child.js');
const SANDBOX_CHILD = join(__dirname, 'sandbox.child.js');
const STUB_CHILD = join(__dirname, 'stub.child.js');
const FLOOR_CHILD = join(__dirname, 'floor.child.js');
const APOLLO_CHILD = join(__dirname, 'apollo.child.js');
const DURABLE_CHILD = join(__dirname, 'durable.child.js');
const HIVE_CHILD = join(__dirname, 'hive.child.js');

interface Part {
  section: Section;
  targets?: TargetCheck[];
  chart?: Chart;
}

const log = (line: string) => console.log(`[bench] ${line}`);

/** A part that fails is reported as such and the others still run; the exit code says so. */
async function attempt(title: string, run: () => Promise<Part>): Promise<Part> {
  try {
    const part = await run();
    console.log(`\n${sectionMarkdown(part.section)}\n`);
    return part;
  } catch (error) {
    process.exitCode = 1;
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`[bench] ${title} failed: ${message}`);
    return {
      section: { title, tables: [], notes: [`failed: ${error instanceof Error ? error.message : String(error)}`] },
    };
  }
}

/**
 * The V8 flags `npm start` runs the gateway with (package.json): young-generation halves of 8 MiB
 * instead of 16, and an old generation bounded at 384 MiB, which also makes V8 grow it by at most
 * about 1.4× the live heap between collections instead of up to 4× (docs/benchmarks.md).
 */
const START_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=384'];

async function main(): Promise<void> {
  const settings = settingsFrom(process.env, process.argv.slice(2));
  const startedAt = new Date();
  const loadAtStart = loadavg();
  if (loadAtStart[0] > cpus().length / 2)
    log(`warning: load average ${loadAtStart[0].toFixed(2)} before starting; other processes will lower these figures`);
  // Whatever hangs, the run ends; children see their IPC channel close and exit too.
  const deadline = setTimeout(() => {
    console.error(`[bench] stopped: still running after ${settings.deadlineMs / 1000} s`);
    process.exit(1);
  }, settings.deadlineMs);
  deadline.unref();

  const tag = randomBytes(3).toString('hex');
  const ids = new ReferenceIds(`b${tag}`);
  log(
    `${settings.quick ? 'quick' : 'full'} run ${tag}: node ${process.version}${settings.profile ? ', with CPU profile' : ''}`,
  );
  const sandbox = await startChild(SANDBOX_CHILD, {});
  const stub = await startChild(STUB_CHILD, {});
  // Gateways talk to the sandbox unless told otherwise (part 1 and the profile use the stub); their log lines go to /dev/null.
  const startGateway: GatewayStarter = (env, execArgv = []) =>
    startChild(GATEWAY_CHILD, { BENCH_UPSTREAM_URL: sandbox.url, ...env }, [...START_FLAGS, ...execArgv], 'ignore');
  const parts: Part[] = [];
  try {
    const runs = (part: BenchPart) => (settings.only === undefined && part !== 'memory') || settings.only === part;
    if (runs('memory')) {
      // A provider slow to settle: every payout stays Pending, so the rechecker keeps asking about them.
      const pendingStub = await startChild(STUB_CHILD, { BENCH_STUB_STATUS: 'Pending', BENCH_STUB_KEEPS_PENDING: '1' });
      try {
        parts.push(await attempt('5. Memory', () => runMemoryBench(settings, startGateway, pendingStub.url, ids, log)));
      } finally {
        await pendingStub.close();
      }
    }
    if (runs('mutation')) {
      parts.push(
        await attempt('1. Mutation cost', async () => {
          const floor = await startChild(FLOOR_CHILD, { BENCH_UPSTREAM_URL: stub.url });
          const apollo = await startChild(APOLLO_CHILD, { BENCH_UPSTREAM_URL: stub.url });
          const durable = await startChild(DURABLE_CHILD, { BENCH_UPSTREAM_URL: stub.url });
          const hive = await startChild(HIVE_CHILD, { BENCH_UPSTREAM_URL: stub.url });
          const gateway = await startGateway({ BENCH_UPSTREAM_URL: stub.url });
          try {
            return await runMutationBench(settings, { stub, floor, apollo, durable, hive, gateway }, ids, log);
          } finally {
            await Promise.all([gateway.close(), hive.close(), durable.close(), apollo.close(), floor.close()]);
          }
        }),
      );
      if (settings.profile) {
        parts.push(
          await attempt('4. CPU profile', async () => ({
            section: await runProfile(
              settings,
              (env, argv) => startGateway({ BENCH_UPSTREAM_URL: stub.url, ...env }, argv),
              ids,
              join(RESULTS_DIR, 'profile'),
              log,
            ),
          })),
        );
      }
    }
    if (runs('fanout'))
      parts.push(await attempt('2. Subscription fan-out', () => runFanoutBench(settings, startGateway, ids, log)));
    if (runs('ingest'))
      parts.push(await attempt('3. Callback ingest', () => runIngestBench(settings, startGateway, ids, log)));
    if (runs('distance'))
      parts.push(
        await attempt('6. Distance to PostgreSQL', () => runDistanceBench(settings, startGateway, stub.url, ids, log)),
      );
  } finally {
    await Promise.all([sandbox.close(), stub.close()]);
  }

  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const report = settings.only ?? 'latest';
  const command = commandOf(settings);
  const targets = parts.flatMap((p) => p.targets ?? []);
  // Sections in their numbered order, whatever order they ran in.
  const sections = parts.map((p) => p.section).sort((a, b) => a.title.localeCompare(b.title));
  const charts = parts.flatMap((p) => (p.chart ? [p.chart] : []));
  const markdown = [
    '# Payout gateway benchmarks',
    `Written by \`${command}\` (bench/bench.main.ts). Figures from one machine, loopback only; compare runs on the same machine only.`,
    markdownTable(machineTable(command, startedAt, seconds, loadAtStart)),
    '## Targets (printed beside their floors, never asserted)',
    markdownTable(targetsTable(targets)),
    ...(charts.length > 0 ? [`![charts](${report}.svg)`] : []),
    ...sections.map(sectionMarkdown),
  ].join('\n\n');
  const svg =
    charts.length > 0
      ? chartsSvg(charts, `${command} · ${startedAt.toISOString()} · node ${process.version}`)
      : undefined;
  const files = await writeReport(RESULTS_DIR, report, `${markdown}\n`, svg);
  console.log(`\n## Targets\n\n${markdownTable(targetsTable(targets))}\n`);
  log(`wrote ${[files.markdown, files.svg].filter(Boolean).join(' and ')} in ${Math.round(seconds)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
