import { setTimeout as sleep } from 'node:timers/promises';
import { BenchSettings } from './bench.settings';
import { Section, TargetCheck } from './bench.report';
import { fmt, mib } from './bench.stats';
import { GatewayStarter, ProcessStats } from './child.ipc';
import { AUTH_HEADERS, createBody, isFailedCreate } from './gateway.client';
import { runLoad } from './load.runner';
import { ReferenceIds } from './mutation.bench';

const ACCOUNT = '260971234567';

interface Sample {
  payouts: number;
  perSec: number;
  failures: number;
  stats: ProcessStats;
}

/** Whether the gateway still holds a payout: records are kept (RECORD_RETENTION_SECONDS 0), so the oldest too. */
async function held(gatewayUrl: string, referenceId: string): Promise<boolean> {
  const res = await fetch(`${gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AUTH_HEADERS },
    body: JSON.stringify({
      query: 'query($r: ID!) { disbursement(referenceId: $r) { referenceId } }',
      variables: { r: referenceId },
    }),
  });
  const body = (await res.json()) as { data?: { disbursement: unknown } };
  return body.data?.disbursement != null;
}

/**
 * Part 5 (`npm run bench -- memory`): the gateway's memory after many payouts stored in its
 * default store (an embedded SQLite file, records kept forever). The stub keeps every payout Pending,
 * as a provider slow to settle would, and says so when asked: a backlog the rechecker keeps asking
 * about. Records live on disk, so RSS should stay flat however many wait.
 */
export async function runMemoryBench(
  settings: BenchSettings,
  startGateway: GatewayStarter,
  stubUrl: string,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<{ section: Section; targets: TargetCheck[] }> {
  const { payouts, sampleEvery, connections, seconds } = settings.memory;
  // By time: a sample every tenth of the run, RSS as the OS sees it (no forced collection), as a
  // process watcher would read it after that long at full speed.
  const byTime = seconds !== undefined;
  const sliceSeconds = byTime ? seconds / 10 : 0;
  const { nodeFlags } = settings.memory;
  const gateway = await startGateway({ BENCH_UPSTREAM_URL: stubUrl }, ['--expose-gc', ...nodeFlags]);
  const samples: Sample[] = [];
  let firstId: string | undefined;
  let lastId = '';
  const nextId = () => {
    lastId = ids.next('mem');
    firstId ??= lastId;
    return lastId;
  };
  const headers = { 'content-type': 'application/json', ...AUTH_HEADERS };
  let oldestHeld: boolean;
  let newestHeld: boolean;
  // V8 hands freed pages back to the OS a little after a collection: read RSS once that is done.
  const settled = async () => {
    await gateway.stats(true);
    await sleep(1_000);
    return gateway.stats(true);
  };
  try {
    const baseline = await settled();
    samples.push({ payouts: 0, perSec: Number.NaN, failures: 0, stats: baseline });
    let done = 0;
    for (let slice = 0; byTime ? slice < 10 : done < payouts; slice += 1) {
      const batch = Math.min(sampleEvery, payouts - done);
      const started = performance.now();
      const load = await runLoad({
        url: `${gateway.url}/graphql`,
        connections,
        ...(byTime ? { seconds: sliceSeconds } : { amount: batch }),
        next: () => ({ headers, body: createBody(nextId(), ACCOUNT) }),
        isFailure: isFailedCreate,
      });
      const failed = load.non2xx + load.errors + load.badBodies;
      // autocannon answers `amount` requests (and sends a few spare ones, also counted by the gateway).
      done += byTime ? load.ok : batch;
      samples.push({
        payouts: done,
        perSec: load.ok / ((performance.now() - started) / 1000),
        failures: failed,
        stats: await gateway.stats(!byTime),
      });
      log(`memory: ${fmt(done, 0)} payouts, RSS ${fmt(mib(samples.at(-1)?.stats.rssBytes ?? 0), 0)} MiB`);
    }
    oldestHeld = firstId !== undefined && (await held(gateway.url, firstId));
    newestHeld = await held(gateway.url, lastId);
  } finally {
    await gateway.close();
  }
  const last = samples[samples.length - 1];
  const peak = last.stats.maxRssBytes;
  // Creates/s at the start (the batches after the first, warm-up, one, up to a fifth of the run) against the
  // last fifth: what a full store costs a create.
  const mean = (values: number[]) =>
    values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
  const measured = samples.slice(1);
  const fifth = Math.max(1, Math.round(measured.length / 5));
  // The first batch warms up; by time, the second fifth of the slices stands for the start.
  const early = mean(measured.slice(1, 1 + fifth).map((s) => s.perSec));
  const late = mean(measured.slice(-fifth).map((s) => s.perSec));
  const lateOverEarly = late / early;
  return {
    section: {
      title: '5. Memory in one process after many payouts',
      tables: [
        {
          headers: [
            'payouts created',
            'RSS after GC',
            'JS heap + external after GC',
            'JS heap held from the OS',
            'peak RSS so far',
            'payouts/s in this batch',
            'failures',
          ],
          rows: samples.map((s) => [
            fmt(s.payouts, 0),
            `${fmt(mib(s.stats.rssBytes), 0)} MiB`,
            `${fmt(mib(s.stats.liveBytes), 0)} MiB`,
            `${fmt(mib(s.stats.heapTotalBytes), 0)} MiB`,
            `${fmt(mib(s.stats.maxRssBytes), 0)} MiB`,
            s.payouts === 0 ? '–' : fmt(s.perSec, 0),
            `${s.failures}`,
          ]),
        },
      ],
      notes: [
        `The gateway with its defaults (the embedded SQLite store in a new file, LOG_LEVEL info), a client token and the quota off, node flags: ${nodeFlags.length > 0 ? nodeFlags.join(' ') : 'none'}, pointed at a provider stub that keeps every payout Pending and answers each status check so (the rechecker keeps asking); ${connections} connections; every payout a new referenceId; ${byTime ? `creates at full speed for ${fmt(seconds, 0)} s, sampled every ${fmt(sliceSeconds, 0)} s` : `${fmt(payouts, 0)} payouts, sampled every ${fmt(sampleEvery, 0)}`}.`,
        `After the run the oldest payout was ${oldestHeld ? 'still there' : 'missing'} and the newest ${newestHeld ? 'there' : 'missing'}.`,
        `Creates/s: ${fmt(early, 0)} in the first fifth of the run (after the first batch), ${fmt(late, 0)} in the last fifth.`,
        byTime
          ? 'RSS and heap are read as they are, with no forced collection (garbage not yet collected included); peak RSS is getrusage maxRSS.'
          : 'RSS and heap are read after forced collections (--expose-gc) and a second for V8 to hand freed pages back, so they show what is kept, not garbage not yet collected; peak RSS is getrusage maxRSS (garbage included).',
      ],
    },
    targets: [
      {
        what: `RSS after ${fmt(last.payouts, 0)} payouts stored in the default store${byTime ? ` (${fmt(seconds, 0)} s at full speed)` : ''}`,
        target: byTime ? '≤ 250 MiB' : '≤ 250 MiB after 1,000,000',
        result: `${fmt(mib(last.stats.rssBytes), 0)} MiB${byTime ? '' : ' after GC'}, peak ${fmt(mib(peak), 0)} MiB`,
        met: byTime || last.payouts >= 1_000_000 ? peak <= 250 * 1024 * 1024 : undefined,
      },
      {
        what: 'creates/s at the end of the run (last fifth), over the start (after the first batch)',
        target: '≥ 0.9',
        result: Number.isFinite(lateOverEarly)
          ? `${fmt(lateOverEarly, 2)} (${fmt(late, 0)} vs ${fmt(early, 0)}/s)`
          : '–',
        met: Number.isFinite(lateOverEarly) ? lateOverEarly >= 0.9 : undefined,
      },
    ],
  };
}
