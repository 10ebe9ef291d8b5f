import { resolve } from 'node:path';
import { DatabaseTarget, databaseTarget, defaultCheckpointFile } from './database/database.target';
import { z } from 'zod';
import { settingSecrets } from './config.secrets';
import { envSchema } from './config.settings';

/** A setting that stops startup; its message is the one line printed. */
export class ConfigError extends Error {}

/** The OTEL_ variables whose presence turns tracing on (the SDK reads them itself). */
const TRACING_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_EXPORTER',
] as const;

/** Settings earlier versions read, and what took their place. */
const RETIRED_REDIS = ['REDIS_URL', 'REDIS_CLUSTER_NODES'] as const;

/**
 * Redis no longer holds records: DATABASE_URL does. A configuration that still names Redis and no
 * PostgreSQL is stopped, since its replicas would each keep a file of their own and could pay twice;
 * with PostgreSQL set, Redis is only ignored (the returned line says so at startup).
 */
function retiredRedis(env: NodeJS.ProcessEnv, database: DatabaseTarget): string | undefined {
  const named = RETIRED_REDIS.filter((name) => env[name]);
  if (named.length === 0) return undefined;
  const what = `${named.join(' and ')} no longer hold${named.length === 1 ? 's' : ''} payouts: they live in DATABASE_URL`;
  if (database.engine === 'sqlite')
    throw new ConfigError(
      `Retired setting ${named[0]}: ${what} (unset: one process on an embedded SQLite file; replicas share PostgreSQL, DATABASE_URL=postgres://...). Remove ${named.join(' and ')}.`,
    );
  return `${what}, PostgreSQL here; ${named.join(' and ')} ignored`;
}

/** Reads and validates the environment; throws a ConfigError naming the first bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const blanksRemoved = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(blanksRemoved);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid setting ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const database = databaseTarget(e.DATABASE_URL);
  // The value is never repeated: it may hold a password.
  if (!database) throw new ConfigError('Invalid setting DATABASE_URL: must be postgres://... or sqlite:<path>');
  const owner = e.DATABASE_OWNER_URL === undefined ? undefined : databaseTarget(e.DATABASE_OWNER_URL);
  if (e.DATABASE_OWNER_URL !== undefined && (owner?.engine !== 'postgres' || database.engine !== 'postgres'))
    throw new ConfigError(
      'Invalid setting DATABASE_OWNER_URL: must be postgres://... on the same database as a postgres:// DATABASE_URL',
    );
  if (e.UPSTREAM_BASE_URL && !e.MERCHANT_API_KEY && !e.MERCHANTS_FILE) {
    throw new ConfigError('Missing setting MERCHANT_API_KEY: required when UPSTREAM_BASE_URL is set');
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid setting HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  const jwtChecks = { JWT_ISSUER: e.JWT_ISSUER, JWT_AUDIENCE: e.JWT_AUDIENCE };
  const missingJwtChecks = e.JWT_JWKS_URL
    ? Object.keys(jwtChecks).filter((name) => !jwtChecks[name as keyof typeof jwtChecks])
    : [];
  if (missingJwtChecks.length > 0) {
    // A shared (multi-tenant) identity provider signs tokens for other applications with the same keys.
    throw new ConfigError(`Missing setting ${missingJwtChecks.join(' and ')}: required when JWT_JWKS_URL is set`);
  }
  if (e.PAYOUT_CONTROLS && e.MERCHANTS_FILE) {
    throw new ConfigError(
      'Invalid setting PAYOUT_CONTROLS: with MERCHANTS_FILE, give each merchant its "controls" in that file',
    );
  }
  return {
    ...toConfig(e, database),
    database,
    databaseOwnerUrl: owner?.engine === 'postgres' ? owner.url : undefined,
    retiredSettings: retiredRedis(blanksRemoved, database),
    secrets: settingSecrets(e),
  };
}

/** The settings arranged as the gateway's parts take them. */
function toConfig(e: z.infer<typeof envSchema>, database: DatabaseTarget) {
  return {
    port: e.PORT,
    host: e.HOST,
    upstreamBaseUrl: e.UPSTREAM_BASE_URL?.replace(/\/+$/, ''),
    merchantApiKey: e.MERCHANT_API_KEY,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    webhookSecrets: e.WEBHOOK_SECRET,
    clientTokens: e.CLIENT_TOKENS,
    merchantsFile: e.MERCHANTS_FILE,
    clientRateLimitPerMin: e.CLIENT_RATE_LIMIT_PER_MIN,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    resendAfterMs: e.RESEND_AFTER_SECONDS * 1000,
    upstreamRateLimitPerMin: e.UPSTREAM_RATE_LIMIT_PER_MIN,
    metricsPort: e.METRICS_PORT,
    /** OpenTelemetry traces: on when an OTEL_ variable asks for them; off, the SDK is never loaded. */
    tracing: {
      enabled:
        e.OTEL_SDK_DISABLED !== true &&
        e.OTEL_TRACES_EXPORTER !== 'none' &&
        TRACING_VARIABLES.some((name) => e[name] !== undefined),
      protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json',
    },
    trustedDocuments: e.TRUSTED_DOCUMENTS
      ? { path: e.TRUSTED_DOCUMENTS, mode: e.TRUSTED_DOCUMENTS_MODE, routerTokens: e.TRUSTED_DOCUMENTS_ROUTER_TOKENS }
      : undefined,
    corsOrigins: e.CORS_ORIGINS,
    /** PAYOUT_CONTROLS as written (JSON); the merchant registry parses it, naming the merchant. */
    payoutControls: e.PAYOUT_CONTROLS,
    payoutDayTimeZone: e.PAYOUT_DAY_TIMEZONE,
    schedule: { lateLimitMs: e.SCHEDULE_LATE_LIMIT_SECONDS * 1000, maxAheadDays: e.SCHEDULE_MAX_AHEAD_DAYS },
    retentionSeconds: e.RECORD_RETENTION_SECONDS,
    /** How long each merchant's change log keeps a change, for `disbursementEvents(after:)` to replay. */
    eventRetentionSeconds: e.EVENT_RETENTION_SECONDS,
    logLevel: e.LOG_LEVEL,
    audit: {
      signingKey: e.AUDIT_SIGNING_KEY,
      checkpointSeconds: e.AUDIT_CHECKPOINT_SECONDS,
      /** AUDIT_CHECKPOINT_FILE, resolved; unset, one beside the database (defaultCheckpointFile). */
      checkpointFile: resolve(e.AUDIT_CHECKPOINT_FILE ?? defaultCheckpointFile(database)),
      /** AUDIT_WITNESS_URL: where every signed checkpoint is also published; unset, none. */
      witnessUrl: e.AUDIT_WITNESS_URL,
      /** AUDIT_WITNESS_TOKEN: the witness's bearer token (a secret). */
      witnessToken: e.AUDIT_WITNESS_TOKEN,
    },
    recheck: {
      intervalMs: e.RECONCILE_INTERVAL_MS,
      unknownAfterMs: e.RECONCILE_UNKNOWN_AFTER_MS,
      pendingAfterMs: e.RECONCILE_PENDING_AFTER_MS,
    },
    breakerResetMs: e.UPSTREAM_BREAKER_RESET_MS,
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnectionsPerIp: e.MAX_CONNECTIONS_PER_IP,
      maxSubscriptionsPerClient: e.MAX_SUBSCRIPTIONS_PER_CLIENT,
    },
    walletBalanceCacheMs: e.WALLET_BALANCE_CACHE_MS,
    introspection: e.GRAPHQL_INTROSPECTION,
    landingPage: e.GRAPHQL_LANDING_PAGE,
    relay: {
      secrets: e.RELAY_WEBHOOK_SECRET,
      maxAttempts: e.RELAY_MAX_ATTEMPTS,
      retryBaseMs: e.RELAY_RETRY_BASE_MS,
      // Trying the gateway on one machine means relaying to localhost; a real deployment must opt in.
      allowPrivateNetworks: e.RELAY_ALLOW_PRIVATE_NETWORKS ?? !e.UPSTREAM_BASE_URL,
      timeoutMs: e.RELAY_TIMEOUT_MS,
      pollMs: e.RELAY_POLL_INTERVAL_MS,
    },
    jwt: {
      jwksUrl: e.JWT_JWKS_URL,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      merchantClaim: e.JWT_MERCHANT_CLAIM,
      jwksCooldownMs: e.JWT_JWKS_COOLDOWN_MS,
      jwksMaxStaleMs: e.JWT_JWKS_MAX_STALE_SECONDS * 1000,
    },
    sandbox: {
      port: e.SANDBOX_PORT,
      host: '127.0.0.1',
      settleMs: e.SANDBOX_SETTLE_MS,
      rateLimitPerMin: e.SANDBOX_RATE_LIMIT_PER_MIN,
      webhookSecret: e.SANDBOX_WEBHOOK_SECRET,
      latencyMs: e.SANDBOX_LATENCY_MS,
      intakeMs: e.SANDBOX_INTAKE_MS,
      openingBalance: e.SANDBOX_OPENING_BALANCE,
      providerShapes: e.SANDBOX_PROVIDER_SHAPES,
    },
  };
}

export type Config = ReturnType<typeof toConfig> & {
  /** DATABASE_URL, parsed. */
  database: DatabaseTarget;
  /** DATABASE_OWNER_URL: the role that migrates, when not DATABASE_URL's. */
  databaseOwnerUrl?: string;
  /** Said once at startup when a retired setting is still set, but harmless. */
  retiredSettings?: string;
  /** Every form of every secret the settings hold (config.secrets.ts), for the logger and the scrubbers. */
  secrets: string[];
};
export type SandboxConfig = Config['sandbox'];
export type JwtConfig = Config['jwt'];
