import 'reflect-metadata';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import { failStart, serveParent } from './child.ipc';
import { BENCH_CLIENT_TOKEN } from './gateway.client';

/**
 * The gateway alone in its own process, so that its CPU time and memory are measured apart
 * from the load generator and the provider stub. Its defaults (LOG_LEVEL info, every other
 * setting unset) with a client token and the quota off; settings come from BENCH_* variables
 * only, never from the caller's own REDIS_URL or LOG_LEVEL.
 */
async function main(): Promise<void> {
  const env = process.env;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM_BASE_URL: env.BENCH_UPSTREAM_URL,
    MERCHANT_API_KEY: 'sandbox-key',
    CLIENT_TOKENS: BENCH_CLIENT_TOKEN,
    CLIENT_RATE_LIMIT_PER_MIN: '0',
    // The bench measures the gateway, not its provider budget.
    UPSTREAM_RATE_LIMIT_PER_MIN: '0',
    // Every simulated client connects from 127.0.0.1: thousands of watchers are not one abusive address.
    MAX_CONNECTIONS_PER_IP: '0',
    MAX_SUBSCRIPTIONS_PER_CLIENT: '0',
    WEBHOOK_SECRET: env.BENCH_WEBHOOK_SECRET,
    REDIS_URL: env.BENCH_REDIS_URL,
    REDIS_KEY_PREFIX: env.BENCH_REDIS_KEY_PREFIX,
    MEMORY_MAX_RECORDS: env.BENCH_MEMORY_MAX_RECORDS,
  });
  const { gateway } = await startApp({ config, trustedProvider: true });
  // The gateway names itself http://localhost:<port>; the bench talks to the address it bound.
  serveParent(gateway.url, new URL(gateway.callbackUrl('default')).pathname, () => gateway.close());
}

main().catch(failStart);
