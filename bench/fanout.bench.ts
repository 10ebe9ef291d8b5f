import { Client } from 'graphql-ws';
import { performance } from 'node:perf_hooks';
import { BenchSettings } from './bench.settings';
import { Chart, Section, TargetCheck } from './bench.report';
import { fmt, percentile, waitUntil } from './bench.stats';
import { CallbackSigner, newWebhookSecret } from './callback.signer';
import { GatewayStarter, Usage, usageBetween } from './child.ipc';
import {
  CallbackTarget,
  createPayouts,
  deliverAtRate,
  NEVER_SETTLES_ACCOUNT,
  subscriberClient,
} from './gateway.client';
import { ReferenceIds } from './mutation.bench';
import {
  disposeAll,
  openInBatches,
  PayoutWatchers,
  PerPayoutRow,
  perSubscriberKb,
  Update,
  WATCH_ALL,
} from './fanout.watchers';

/** Subscribers and callbacks that run the whole path once before anything is measured (JIT, pools). */
const WARMUP_SUBSCRIBERS = 1_000;

/** N subscribers, each on its own payout over its own websocket; one final callback per payout at a steady rate. */
async function perPayoutRun(
  count: number,
  settings: BenchSettings,
  startGateway: GatewayStarter,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<PerPayoutRow> {
  const { connectBatch, callbacksPerSec } = settings.fanout;
  const secret = newWebhookSecret();
  // --expose-gc: memory is read after a full collection, not whenever V8 last ran one.
  const gateway = await startGateway({ BENCH_WEBHOOK_SECRET: secret }, ['--expose-gc']);
  const target = new CallbackTarget(gateway.callbackUrl);
  const signer = new CallbackSigner(secret);
  const warmRefs = Array.from({ length: WARMUP_SUBSCRIBERS }, () => ids.next(`fan${count}-warm`));
  const refs = Array.from({ length: count }, () => ids.next(`fan${count}`));
  const warm = new PayoutWatchers(gateway.url, warmRefs);
  const watchers = new PayoutWatchers(gateway.url, refs);
  try {
    log(`fan-out ${count}: creating ${count + WARMUP_SUBSCRIBERS} payouts through the gateway`);
    await createPayouts(gateway.url, [...warmRefs, ...refs], NEVER_SETTLES_ACCOUNT, settings.createConcurrency);
    // Read before the warm-up: heap the warm-up frees would otherwise be reused by the subscribers and hide their cost.
    const before = await gateway.stats(true);
    await warm.open(connectBatch);
    await warm.deliver(
      target,
      warmRefs.map((ref) => signer.successful(ref, NEVER_SETTLES_ACCOUNT)),
      callbacksPerSec,
    );
    await disposeAll(warm.clients);

    log(`fan-out ${count}: opening ${count} websockets, ${connectBatch} at a time`);
    const connectSeconds = await watchers.open(connectBatch);
    const after = await gateway.stats(true);
    const memory = perSubscriberKb(before, after, Math.max(1, watchers.ready));

    const callbacks = refs.map((ref) => signer.successful(ref, NEVER_SETTLES_ACCOUNT));
    log(`fan-out ${count}: ${watchers.ready} live; delivering ${count} callbacks at ${callbacksPerSec}/s`);
    const clientLoopBefore = performance.eventLoopUtilization();
    const gatewayBefore = await gateway.stats();
    const delivery = await watchers.deliver(target, callbacks, callbacksPerSec);
    const gatewayUse = usageBetween(gatewayBefore, await gateway.stats());
    const clientLoop = performance.eventLoopUtilization(clientLoopBefore).utilization;

    const duplicates = watchers.duplicates();
    return {
      subscribers: count,
      connected: watchers.ready,
      connectSeconds,
      rssPerSubscriberKb: memory.rss,
      livePerSubscriberKb: memory.live,
      callbacksAccepted: delivery.accepted,
      sentPerSec: delivery.perSec,
      exactlyOnce: watchers.receivedOnce - duplicates,
      lost: watchers.ready - watchers.receivedOnce,
      duplicates,
      p50Ms: percentile(watchers.latencies, 50),
      p99Ms: percentile(watchers.latencies, 99),
      maxMs: percentile(watchers.latencies, 100),
      gateway: gatewayUse,
      clientLoop,
    };
  } finally {
    await disposeAll(warm.clients);
    await disposeAll(watchers.clients);
    await target.close();
    await gateway.close();
  }
}

interface StreamRow {
  subscribers: number;
  connected: number;
  callbacks: number;
  expected: number;
  received: number;
  lost: number;
  duplicates: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  deliveriesPerSec: number;
  gateway: Usage;
  clientLoop: number;
}

/** Many subscribers on one merchant's stream: every callback must reach every one of them. */
async function streamRun(
  settings: BenchSettings,
  startGateway: GatewayStarter,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<StreamRow> {
  const { streamSubscribers: m, streamCallbacks: k, streamCallbacksPerSec: rate, connectBatch } = settings.fanout;
  const warmups = 10;
  const secret = newWebhookSecret();
  const gateway = await startGateway({ BENCH_WEBHOOK_SECRET: secret });
  const clients: Client[] = [];
  const target = new CallbackTarget(gateway.callbackUrl);
  try {
    const refs = Array.from({ length: k + warmups }, () => ids.next('stream'));
    log(`stream: creating ${refs.length} payouts`);
    await createPayouts(gateway.url, refs, NEVER_SETTLES_ACCOUNT, settings.createConcurrency);
    const measuredIndex = new Map(refs.slice(0, k).map((ref, i) => [ref, i]));
    const seen = new Uint8Array(m * k);
    const warmed = new Uint8Array(m);
    const sentAt = new Float64Array(k);
    const latencies: number[] = [];
    let connected = 0;
    let failed = 0;
    let warmedCount = 0;
    let received = 0;
    let duplicates = 0;

    log(`stream: opening ${m} websockets on disbursementUpdates`);
    await openInBatches(
      m,
      connectBatch,
      (s) => {
        const client = subscriberClient(gateway.url);
        clients.push(client);
        client.on('connected', () => {
          connected += 1;
        });
        client.subscribe<{ disbursementUpdates: Update }>(
          { query: WATCH_ALL },
          {
            next: ({ data }) => {
              const at = performance.now();
              const ref = data?.disbursementUpdates.referenceId ?? '';
              const index = measuredIndex.get(ref);
              if (index === undefined) {
                if (warmed[s] === 0) warmedCount += 1;
                warmed[s] = 1;
                return;
              }
              const slot = s * k + index;
              if (seen[slot] === 1) {
                duplicates += 1;
                return;
              }
              seen[slot] = 1;
              received += 1;
              latencies.push(at - sentAt[index]);
            },
            error: () => {
              failed += 1;
            },
            complete: () => undefined,
          },
        );
      },
      () => connected + failed,
    );

    // The stream sends nothing on subscribe, so a callback nobody measures shows when every subscriber is live.
    const signer = new CallbackSigner(secret);
    const callbacks = refs.map((ref) => signer.successful(ref, NEVER_SETTLES_ACCOUNT));
    for (let w = 0; w < warmups && warmedCount < connected; w += 1) {
      await target.post(callbacks[k + w]);
      await waitUntil(() => warmedCount >= connected, 2_000);
    }

    log(`stream: ${warmedCount} live; ${k} callbacks at ${rate}/s, each to ${warmedCount} subscribers`);
    const clientLoopBefore = performance.eventLoopUtilization();
    const gatewayBefore = await gateway.stats();
    const started = performance.now();
    await deliverAtRate(target, callbacks.slice(0, k), rate, (i) => {
      sentAt[i] = performance.now();
    });
    const expected = warmedCount * k;
    await waitUntil(() => received >= expected, 15_000);
    const seconds = (performance.now() - started) / 1000;
    const gatewayUse = usageBetween(gatewayBefore, await gateway.stats());
    const clientLoop = performance.eventLoopUtilization(clientLoopBefore).utilization;
    return {
      subscribers: m,
      connected: warmedCount,
      callbacks: k,
      expected,
      received,
      lost: Math.max(0, expected - received),
      duplicates,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: percentile(latencies, 100),
      deliveriesPerSec: received / seconds,
      gateway: gatewayUse,
      clientLoop,
    };
  } finally {
    await disposeAll(clients);
    await target.close();
    await gateway.close();
  }
}

export interface FanoutOutcome {
  section: Section;
  targets: TargetCheck[];
  chart: Chart;
}

const pct = (fraction: number) => `${fmt(fraction * 100, 0)} %`;
const pauses = (use: Usage) => `${fmt(use.stallMaxMs, 0)} / ${fmt(use.gcPauseMaxMs, 0)}`;
/** Above this the one-threaded client itself delays what it measures. */
const CLIENT_SATURATED = 0.9;

/** Part 2: subscription fan-out, per payout at each count, then many watchers of one merchant stream. */
export async function runFanoutBench(
  settings: BenchSettings,
  startGateway: GatewayStarter,
  ids: ReferenceIds,
  log: (line: string) => void,
): Promise<FanoutOutcome> {
  const rows: PerPayoutRow[] = [];
  for (const count of settings.fanout.counts) rows.push(await perPayoutRun(count, settings, startGateway, ids, log));
  const stream = await streamRun(settings, startGateway, ids, log);

  const saturated = [...rows.map((r) => r.clientLoop), stream.clientLoop].some((u) => u > CLIENT_SATURATED);
  const rate = settings.fanout.callbacksPerSec;
  const behind = rows
    .filter((r) => r.sentPerSec < 0.9 * rate)
    .map(
      (r) =>
        `${fmt(r.subscribers, 0)} subscribers: ${fmt(r.sentPerSec, 0)}/s with the gateway loop ${pct(r.gateway.loopUtilization)} busy`,
    );
  const largest = rows.find((r) => r.subscribers === 10_000);
  const targets: TargetCheck[] = [
    {
      what: '10,000 subscribers: p99 callback → subscriber',
      target: '< 100 ms',
      result: largest ? `${fmt(largest.p99Ms, 1)} ms` : 'not run (quick mode)',
      met: largest ? largest.p99Ms < 100 : undefined,
    },
    {
      what: '10,000 subscribers: gateway memory each',
      target: '≤ 8 KiB',
      result: largest ? `${fmt(largest.rssPerSubscriberKb, 1)} KiB RSS` : 'not run (quick mode)',
      met: largest ? largest.rssPerSubscriberKb <= 8 : undefined,
    },
    {
      what: 'updates lost or duplicated (all fan-out runs)',
      target: '0',
      result: `${rows.reduce((s, r) => s + r.lost + r.duplicates, 0) + stream.lost + stream.duplicates}`,
      met: rows.every((r) => r.lost === 0 && r.duplicates === 0) && stream.lost === 0 && stream.duplicates === 0,
    },
  ];

  return {
    section: {
      title: '2. Subscription fan-out: callback → graphql-ws subscriber',
      tables: [
        {
          title: `disbursementUpdated(referenceId): one payout per subscriber, one websocket each, callbacks at ${settings.fanout.callbacksPerSec}/s`,
          headers: [
            'subscribers',
            'live',
            'connect s',
            'gateway RSS / sub',
            'gateway heap+external / sub',
            'callbacks 2xx',
            'sent /s',
            'exactly once',
            'lost',
            'dup',
            'p50 ms',
            'p99 ms',
            'max ms',
            'gateway loop busy',
            'gateway longest stall / GC pause ms',
            'client loop busy',
          ],
          rows: rows.map((r) => [
            fmt(r.subscribers, 0),
            fmt(r.connected, 0),
            fmt(r.connectSeconds, 1),
            `${fmt(r.rssPerSubscriberKb, 1)} KiB`,
            `${fmt(r.livePerSubscriberKb, 1)} KiB`,
            fmt(r.callbacksAccepted, 0),
            fmt(r.sentPerSec, 0),
            fmt(r.exactlyOnce, 0),
            `${r.lost}`,
            `${r.duplicates}`,
            fmt(r.p50Ms, 2),
            fmt(r.p99Ms, 2),
            fmt(r.maxMs, 1),
            pct(r.gateway.loopUtilization),
            pauses(r.gateway),
            pct(r.clientLoop),
          ]),
        },
        {
          title: `disbursementUpdates: ${stream.subscribers} subscribers on one merchant's stream, ${stream.callbacks} callbacks at ${settings.fanout.streamCallbacksPerSec}/s`,
          headers: [
            'subscribers live',
            'updates expected',
            'received',
            'lost',
            'dup',
            'deliveries /s',
            'p50 ms',
            'p99 ms',
            'max ms',
            'gateway loop busy',
            'gateway longest stall / GC pause ms',
            'client loop busy',
          ],
          rows: [
            [
              fmt(stream.connected, 0),
              fmt(stream.expected, 0),
              fmt(stream.received, 0),
              `${stream.lost}`,
              `${stream.duplicates}`,
              fmt(stream.deliveriesPerSec, 0),
              fmt(stream.p50Ms, 2),
              fmt(stream.p99Ms, 2),
              fmt(stream.maxMs, 1),
              pct(stream.gateway.loopUtilization),
              pauses(stream.gateway),
              pct(stream.clientLoop),
            ],
          ],
        },
      ],
      notes: [
        'Latency: from just before the signed callback is sent to the gateway until the subscriber in this process has parsed the update (one clock).',
        `Memory: the gateway's RSS, and its JS heap + external memory, after a forced GC with every subscriber live, minus the same before any connected (payouts created; read before ${fmt(WARMUP_SUBSCRIBERS, 0)} warm-up subscribers were served and closed, so what the warm-up left, such as compiled code, counts against the subscribers), divided by live subscribers. RSS is what the OS charges; heap + external is live memory without allocator slack.`,
        "A fresh gateway child per row; the sandbox keeps these payouts Pending (account …222), so only the bench's own signed callbacks arrive; its wallet never runs dry, and a payout not created PENDING stops the run.",
        ...(behind.length > 0
          ? [
              `The gateway did not keep up with ${fmt(rate, 0)} callbacks/s (${behind.join('; ')}): callbacks queued, so latency there is mostly waiting in that queue.`,
            ]
          : []),
        "Longest stall: the gateway event loop's largest delay during delivery (monitorEventLoopDelay); longest GC pause from GC performance entries. A stall holds every update queued behind it, which is what a p99 far above p50 shows.",
        `loop busy = event-loop utilisation during delivery; the client (this process: every websocket plus the callback sender) ${saturated ? `passed ${pct(CLIENT_SATURATED)} in some run, so it was saturated and latencies there include its own queueing` : `stayed under ${pct(CLIENT_SATURATED)}, so it was not the bottleneck`}.`,
      ],
    },
    targets,
    chart: {
      title: 'Callback → subscriber latency',
      unit: 'ms',
      groups: [
        ...rows.map((r) => ({
          label: `${fmt(r.subscribers, 0)} subs`,
          values: [
            { series: 'p50', value: r.p50Ms },
            { series: 'p99', value: r.p99Ms },
          ],
        })),
        {
          label: `stream ×${fmt(stream.connected, 0)}`,
          values: [
            { series: 'p50', value: stream.p50Ms },
            { series: 'p99', value: stream.p99Ms },
          ],
        },
      ],
      target: { value: 100, label: 'target p99 100 ms' },
    },
  };
}
