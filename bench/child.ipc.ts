import { ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { GCProfiler } from 'node:v8';
import { databaseQueries, groupWrites, sqliteStatements } from './query.counter';

/** Figures of one process: cumulative since it started (the parent diffs two), except the pauses. */
export interface ProcessStats {
  cpuUs: number;
  /** The part of cpuUs spent in the kernel (syscalls: socket reads and writes). */
  cpuSystemUs: number;
  rssBytes: number;
  /** The OS's peak resident set since start (getrusage), not a sampled guess. */
  maxRssBytes: number;
  /** JS heap in use plus memory held outside it for JS objects (Buffers): live memory, without allocator slack. */
  liveBytes: number;
  /** The JS heap V8 holds from the OS (used or not). */
  heapTotalBytes: number;
  /** Bytes allocated on the JS heap since the child started (Allocations); Buffers' memory outside it is not counted. */
  allocatedBytes: number;
  loopActiveMs: number;
  loopIdleMs: number;
  /** Longest event-loop stall since the previous reading: nothing was delivered for that long. */
  stallMaxMs: number;
  /** Longest GC pause and all GC time since the previous reading. */
  gcPauseMaxMs: number;
  gcMs: number;
  /** Queries sent to PostgreSQL (its round trips); 0 in SQLite mode. */
  databaseQueries: number;
  /** SQLite statements run, and writes handed to its group commit; 0 in PostgreSQL mode. */
  sqliteStatements: number;
  groupWrites: number;
}

type ParentMessage = { type: 'stats'; collectGarbage: boolean } | { type: 'close' };
type ChildMessage =
  | { type: 'ready'; url: string; callbackPath: string }
  | { type: 'failed'; message: string }
  | { type: 'stats'; stats: ProcessStats };

function isMessage<T extends { type: string }>(value: unknown): value is T {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Stalls and GC pauses since the last reading: where a latency tail comes from. */
class Pauses {
  private readonly delay = monitorEventLoopDelay({ resolution: 10 });
  private gcMaxMs = 0;
  private gcTotalMs = 0;
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      this.gcTotalMs += entry.duration;
      this.gcMaxMs = Math.max(this.gcMaxMs, entry.duration);
    }
  });

  constructor() {
    this.delay.enable();
    this.observer.observe({ entryTypes: ['gc'] });
  }

  take(): Pick<ProcessStats, 'stallMaxMs' | 'gcPauseMaxMs' | 'gcMs'> {
    const taken = { stallMaxMs: this.delay.max / 1e6, gcPauseMaxMs: this.gcMaxMs, gcMs: this.gcTotalMs };
    this.delay.reset();
    this.gcMaxMs = 0;
    this.gcTotalMs = 0;
    return taken;
  }
}

/**
 * Bytes allocated on the JS heap, cumulative: what is in use now plus what every collection so far
 * freed (GCProfiler reports the heap in use before and after each). Node 24's V8 has no allocation
 * counter of its own. A collection that runs while the profile is being read (a few hundred entries)
 * is missed, so a reading can fall short by at most one collection's worth.
 */
class Allocations {
  private readonly profiler = new GCProfiler();
  private freedBytes = 0;

  constructor() {
    this.profiler.start();
  }

  total(heapUsedBytes: number): number {
    const profile = this.profiler.stop();
    this.profiler.start();
    for (const { beforeGC, afterGC } of profile?.statistics ?? [])
      this.freedBytes += beforeGC.heapStatistics.usedHeapSize - afterGC.heapStatistics.usedHeapSize;
    return heapUsedBytes + this.freedBytes;
  }
}

/**
 * gc() is there only when the child runs with --expose-gc; twice so that weak and finalised
 * objects go too. The pauses are taken first: a forced collection is not part of the phase measured.
 */
async function processStats(collectGarbage: boolean, pauses: Pauses, allocations: Allocations): Promise<ProcessStats> {
  const phase = pauses.take();
  if (collectGarbage && globalThis.gc) {
    globalThis.gc();
    globalThis.gc();
    // GC entries reach the observer on a later turn; let them land, then drop them.
    await nextTurn();
    pauses.take();
  }
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  const loop = performance.eventLoopUtilization();
  return {
    cpuUs: cpu.user + cpu.system,
    cpuSystemUs: cpu.system,
    rssBytes: memory.rss,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    liveBytes: memory.heapUsed + memory.external,
    heapTotalBytes: memory.heapTotal,
    allocatedBytes: allocations.total(memory.heapUsed),
    loopActiveMs: loop.active,
    loopIdleMs: loop.idle,
    databaseQueries: databaseQueries(),
    sqliteStatements: sqliteStatements(),
    groupWrites: groupWrites(),
    ...phase,
  };
}

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => process.send?.(message, undefined, undefined, () => resolve()));
}

/** Child side: announce readiness, answer stats requests, close and exit when told or when the parent is gone. */
export function serveParent(url: string, callbackPath: string, close: () => Promise<void>): void {
  let closing = false;
  const pauses = new Pauses();
  const allocations = new Allocations();
  // Answers leave in the order asked, which is how the parent matches them.
  let answering = Promise.resolve();
  process.on('message', (message: unknown) => {
    if (!isMessage<ParentMessage>(message)) return;
    if (message.type === 'stats') {
      const { collectGarbage } = message;
      answering = answering.then(async () =>
        send({ type: 'stats', stats: await processStats(collectGarbage, pauses, allocations) }),
      );
    }
    if (message.type === 'close' && !closing) {
      closing = true;
      // process.exit still writes a --cpu-prof profile; it also ends whatever close() left behind.
      void close().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => {
    if (!closing) process.exit(0);
  });
  void send({ type: 'ready', url, callbackPath });
}

/** Child side: `server` on a loopback port for the parent; on close its connections end, then `closeRest` runs. */
export async function serveHttpToParent(
  server: Server,
  closeRest: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serveParent(`http://127.0.0.1:${port}`, '', async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await closeRest();
  });
}

/** Child side: report a start failure to the parent, then stop (a half-started server would keep it alive). */
export async function failStart(error: unknown): Promise<never> {
  await send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

/** The child said it could not start (e.g. a store it does not support yet). */
export class ChildStartError extends Error {}

export interface ChildHandle {
  pid: number;
  url: string;
  /** Where signed provider callbacks go, on `url`. */
  callbackUrl: string;
  stats(collectGarbage?: boolean): Promise<ProcessStats>;
  /** Asks for a clean close; kills the child by its pid if it has not exited within 15 s. */
  close(): Promise<void>;
}

/** Starts a gateway child against the sandbox, with extra BENCH_* settings and node flags. */
export type GatewayStarter = (env: Record<string, string>, execArgv?: string[]) => Promise<ChildHandle>;

const START_TIMEOUT_MS = 30_000;
const CLOSE_TIMEOUT_MS = 15_000;

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return true;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    await once(child, 'exit', { signal: timeout });
    return true;
  } catch {
    return exited(child);
  }
}

/**
 * Parent side: forks a compiled bench child and waits until it reports its address. A gateway's
 * log lines (stdout) go to /dev/null: written, as in production, but not onto the bench's terminal.
 */
export async function startChild(
  script: string,
  env: Record<string, string>,
  execArgv: string[] = [],
  stdout: 'inherit' | 'ignore' = 'inherit',
): Promise<ChildHandle> {
  const child = fork(script, [], {
    env: { ...process.env, ...env },
    execArgv,
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  // The child answers stats requests in order, so the oldest waiter gets each answer.
  const waiting: { resolve: (stats: ProcessStats) => void; reject: (error: Error) => void }[] = [];
  child.on('message', (message: unknown) => {
    if (isMessage<ChildMessage>(message) && message.type === 'stats') waiting.shift()?.resolve(message.stats);
  });
  child.on('exit', (code, signal) => {
    const error = new Error(`bench child ${child.pid} exited (${signal ?? code})`);
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  });

  const ready = await new Promise<Extract<ChildMessage, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const settle = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: unknown) => {
      if (!isMessage<ChildMessage>(message)) return;
      if (message.type === 'ready') {
        settle();
        resolve(message);
      } else if (message.type === 'failed') {
        settle();
        reject(new ChildStartError(message.message));
      }
    };
    const onExit = () => {
      settle();
      reject(new Error(`${script} exited before it was ready`));
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  }).catch(async (error: unknown) => {
    if (!(await waitForExit(child, CLOSE_TIMEOUT_MS))) child.kill('SIGKILL');
    throw error;
  });

  return {
    pid: child.pid ?? -1,
    url: ready.url,
    callbackUrl: ready.url + ready.callbackPath,
    stats: (collectGarbage = false) =>
      new Promise<ProcessStats>((resolve, reject) => {
        if (exited(child)) return reject(new Error(`bench child ${child.pid} has exited`));
        waiting.push({ resolve, reject });
        child.send({ type: 'stats', collectGarbage } satisfies ParentMessage);
      }),
    close: async () => {
      if (exited(child)) return;
      child.send({ type: 'close' } satisfies ParentMessage);
      if (await waitForExit(child, CLOSE_TIMEOUT_MS)) return;
      child.kill('SIGKILL');
      await waitForExit(child, CLOSE_TIMEOUT_MS);
    },
  };
}

export interface Usage {
  cpuMs: number;
  /** Share of cpuMs spent in the kernel. */
  kernelShare: number;
  loopUtilization: number;
  stallMaxMs: number;
  gcPauseMaxMs: number;
  gcMs: number;
}

/** What a child did between two stats: CPU time, how much of it in the kernel, how busy its loop was, its pauses. */
export function usageBetween(before: ProcessStats, after: ProcessStats): Usage {
  const active = after.loopActiveMs - before.loopActiveMs;
  const idle = after.loopIdleMs - before.loopIdleMs;
  const cpuUs = after.cpuUs - before.cpuUs;
  return {
    cpuMs: cpuUs / 1000,
    kernelShare: cpuUs > 0 ? (after.cpuSystemUs - before.cpuSystemUs) / cpuUs : 0,
    loopUtilization: active + idle > 0 ? active / (active + idle) : 0,
    stallMaxMs: after.stallMaxMs,
    gcPauseMaxMs: after.gcPauseMaxMs,
    gcMs: after.gcMs,
  };
}

/** Cores this process kept busy since `since` (a process.cpuUsage() reading) over `wallMs`. */
export function ownCores(since: NodeJS.CpuUsage, wallMs: number): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000 / wallMs;
}
