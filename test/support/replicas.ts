import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { SandboxHandle, SandboxOptions, startSandbox } from '../../src/sandbox/sandbox.server';
import { knownSecrets } from './stack';

export interface SharedProvider {
  sandbox: SandboxHandle;
  /** The settings every replica shares: the sandbox, its signing secret, one audit key, one database (its settings whole). */
  env: Record<string, string>;
}

/**
 * What a gateway process in a crash, restart or soak test runs with besides its provider and
 * database: any port, no client quota, a provider call unknown after 1 s, and a rechecker that looks
 * every 100 ms, first 200 ms after an outcome became unknown. Each test adds its own intake and
 * pending timings.
 */
export const QUICK_RECOVERY_ENV = {
  PORT: '0',
  CLIENT_RATE_LIMIT_PER_MIN: '0',
  UPSTREAM_TIMEOUT_MS: '1000',
  RECONCILE_INTERVAL_MS: '100',
  RECONCILE_UNKNOWN_AFTER_MS: '200',
} as const;

/**
 * A requester's and an approver's client tokens, with every payout above 1,000 ZMW held for approval;
 * both tokens are known secrets, so no output may show them.
 */
export function approvalTokens(requester: string, approver: string): Record<string, string> {
  knownSecrets.add(requester);
  knownSecrets.add(approver);
  return {
    CLIENT_TOKENS: `${requester},${approver}`,
    PAYOUT_CONTROLS: JSON.stringify({ approvalAbove: { ZMW: '1000' } }),
  };
}

/**
 * One sandbox (no rate limit, signed callbacks) for several gateways sharing one database (`database`: DATABASE_URL
 * and whatever else its engine's gateways are given), as replicas behind a load balancer. The provider budget is off, as the sandbox has no limit to guard
 * (as test/support/stack.ts does). Replicas share one AUDIT_SIGNING_KEY as production's must (docs/scale-out.md): a
 * payout one holds or schedules, another sends after checking its seal, whatever working folder each starts in. Each
 * test adds its own settings to `env`.
 */
export async function sharedProvider(
  database: Record<string, string>,
  timing: Pick<SandboxOptions, 'settleMs' | 'callbackRetryBaseMs' | 'latencyMs'>,
): Promise<SharedProvider> {
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const sandbox = await startSandbox({ port: 0, rateLimitPerMin: 0, webhookSecret, ...timing });
  const auditKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    sandbox,
    env: {
      HOST: '127.0.0.1',
      UPSTREAM_BASE_URL: sandbox.url,
      MERCHANT_API_KEY: 'sandbox-key',
      WEBHOOK_SECRET: webhookSecret,
      UPSTREAM_RATE_LIMIT_PER_MIN: '0',
      AUDIT_SIGNING_KEY: auditKey,
      ...database,
    },
  };
}
