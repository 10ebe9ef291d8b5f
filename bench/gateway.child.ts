import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import { failStart, serveParent } from './child.ipc';
import { BENCH_CLIENT_TOKEN } from './gateway.client';
import { countDatabaseWork } from './query.counter';

/**
 * The gateway alone in its own process, so that its CPU time and memory are measured apart
 * from the load generator and the provider stub. Its defaults (LOG_LEVEL info, every other
 * setting unset) with a client token and the quota off; settings come from BENCH_* variables
 * only, never from the caller's own DATABASE_URL or LOG_LEVEL. Without BENCH_DATABASE_URL, the
 * default store (an embedded SQLite file) in a new folder, so every run starts empty.
 */
/**
 * One merchant (`default`, the bench's client token), or with BENCH_MERCHANTS=n a MERCHANTS_FILE of n
 * merchants `m0`…, each with its own provider key and the client token `<token>-m<i>`.
 */
function merchantsOf(count: number): Record<string, string> {
  if (count <= 1) return { MERCHANT_API_KEY: 'sandbox-key', CLIENT_TOKENS: BENCH_CLIENT_TOKEN };
  const folder = mkdtempSync(join(tmpdir(), 'bench-merchants-'));
  process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  const file = join(folder, 'merchants.json');
  const merchants = Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    apiKey: `sandbox-key-${i}`,
    clientTokens: [`${BENCH_CLIENT_TOKEN}-m${i}`],
  }));
  writeFileSync(file, JSON.stringify(merchants));
  return { MERCHANTS_FILE: file };
}

async function main(): Promise<void> {
  const env = process.env;
  countDatabaseWork();
  const folder = env.BENCH_DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'bench-gateway-'));
  if (folder) process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM_BASE_URL: env.BENCH_UPSTREAM_URL,
    ...merchantsOf(Number(env.BENCH_MERCHANTS ?? 1)),
    CLIENT_RATE_LIMIT_PER_MIN: '0',
    // The bench measures the gateway, not its provider budget.
    UPSTREAM_RATE_LIMIT_PER_MIN: '0',
    // Every simulated client connects from 127.0.0.1: thousands of watchers are not one abusive address.
    MAX_CONNECTIONS_PER_IP: '0',
    MAX_SUBSCRIPTIONS_PER_CLIENT: '0',
    WEBHOOK_SECRET: env.BENCH_WEBHOOK_SECRET,
    DATABASE_URL: env.BENCH_DATABASE_URL ?? `sqlite:${join(folder ?? '', 'gateway.sqlite')}`,
  });
  const { gateway } = await startApp({ config, trustedProvider: true });
  // The gateway names itself http://localhost:<port>; the bench talks to the address it bound.
  serveParent(gateway.url, new URL(gateway.callbackUrl('default')).pathname, () => gateway.close());
}

main().catch(failStart);
