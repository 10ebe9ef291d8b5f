import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';

/** A redis-server of the bench's own, on a free port, so Redis figures and command counts are ours alone. */
export interface OwnRedis {
  url: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts redis-server (from PATH) without persistence; undefined when there is none. */
export async function startOwnRedis(): Promise<OwnRedis | undefined> {
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await Promise.race([once(child, 'spawn'), once(child, 'error').then(([e]) => Promise.reject(e as Error))]);
  } catch {
    return undefined;
  }
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch {
      probe.disconnect();
      await sleep(100);
    }
  }
  probe.disconnect();
  return {
    url,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * Counts the commands clients send (round trips, unless pipelined) from now until `stop()`, with
 * MONITOR: unlike INFO commandstats, it tells a client's command from the ones a script runs inside
 * Redis. MONITOR costs Redis some time, so what it watches runs a little slower.
 */
export async function countClientCommands(url: string): Promise<{ stop: () => Promise<number> }> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  await redis.connect();
  const monitor = await redis.monitor();
  let count = 0;
  monitor.on('monitor', (_time: string, _args: string[], source: string) => {
    if (source !== 'lua') count += 1;
  });
  return {
    stop: async () => {
      monitor.disconnect();
      redis.disconnect();
      return count;
    },
  };
}

/** Commands Redis has executed so far, all kinds (INFO commandstats), minus the INFO calls themselves. */
export async function redisCommandCount(url: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    const info = await redis.info('commandstats');
    let calls = 0;
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (match[1] !== 'info' && match[1] !== 'hello' && match[1] !== 'client') calls += Number(match[2]);
    }
    return calls;
  } finally {
    redis.disconnect();
  }
}
