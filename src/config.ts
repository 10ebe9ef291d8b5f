import { RedisTarget } from './store/redis.connection';
import { z } from 'zod';

/** A setting that stops startup; its message is the one line printed. */
export class ConfigError extends Error {}

const port = z.coerce.number().int().min(0).max(65535);
const nonNegativeInt = z.coerce.number().int().min(0);
const optionalText = z.string().trim().min(1).optional();
const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

const envSchema = z.object({
  PORT: port.default(4000),
  HOST: z.string().min(1).default('0.0.0.0'),
  UPSTREAM_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  MERCHANT_API_KEY: optionalText,
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  WEBHOOK_SECRET: optionalText,
  CLIENT_TOKENS: list,
  MERCHANTS_FILE: optionalText,
  CLIENT_RATE_LIMIT_PER_MIN: nonNegativeInt.default(600),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(15000),
  CORS_ORIGINS: list,
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^\s*[\w.-]+:\d{1,5}\s*(,\s*[\w.-]+:\d{1,5}\s*)*$/, 'must be host:port,host:port,...')
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/, 'must be 1-64 letters, digits or _ : . -')
    .default('pgw:'),
  RECORD_RETENTION_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(7 * 24 * 3600),
  MEMORY_MAX_RECORDS: z.coerce.number().int().min(1).default(100_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RECONCILE_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
  RECONCILE_UNKNOWN_AFTER_MS: z.coerce.number().int().min(1).default(2000),
  RECONCILE_PENDING_AFTER_MS: z.coerce.number().int().min(1).default(60000),
  UPSTREAM_BREAKER_RESET_MS: z.coerce.number().int().min(1).default(10000),
  RELAY_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_ followed by base64')
    .optional(),
  RELAY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(8),
  RELAY_RETRY_BASE_MS: z.coerce.number().int().min(1).default(1000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(65_000),
  MAX_CONNECTIONS_PER_IP: nonNegativeInt.default(256),
  RELAY_ALLOW_PRIVATE_NETWORKS: z.stringbool().optional(),
  RELAY_TIMEOUT_MS: z.coerce.number().int().min(1).default(5000),
  RELAY_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
  WALLET_BALANCE_CACHE_MS: nonNegativeInt.default(5000),
  GRAPHQL_INTROSPECTION: z.stringbool().default(true),
  GRAPHQL_LANDING_PAGE: z.stringbool().default(true),
  JWT_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  JWT_ISSUER: optionalText,
  JWT_AUDIENCE: optionalText,
  JWT_MERCHANT_CLAIM: z.string().trim().min(1).default('merchant_id'),
  JWT_JWKS_COOLDOWN_MS: nonNegativeInt.default(30_000),
  SANDBOX_PORT: port.default(4010),
  SANDBOX_SETTLE_MS: nonNegativeInt.default(2000),
  SANDBOX_RATE_LIMIT_PER_MIN: nonNegativeInt.default(120),
  SANDBOX_WEBHOOK_SECRET: optionalText,
  SANDBOX_LATENCY_MS: nonNegativeInt.default(0),
  SANDBOX_OPENING_BALANCE: z
    .string()
    .regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be an amount such as 1000000 or 2500.50')
    .transform(Number)
    .default(1_000_000),
});

export interface SandboxConfig {
  port: number;
  host: string;
  settleMs: number;
  rateLimitPerMin: number;
  /** Standard Webhooks secret (`whsec_...`); unset: callbacks are sent unsigned. */
  webhookSecret?: string;
  latencyMs: number;
  /** Every key's wallet starts with it. */
  openingBalance: number;
}

export interface JwtConfig {
  /** The identity provider's key set; unset: no JWTs (except the embedded sandbox's development keys). */
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  merchantClaim: string;
  /** Least time between two key set fetches, so unknown `kid`s cannot make the gateway hammer the provider. */
  jwksCooldownMs: number;
}

export interface Config {
  port: number;
  host: string;
  /** Unset: the embedded sandbox is started and used. */
  upstreamBaseUrl?: string;
  merchantApiKey?: string;
  /** Unset: `http://localhost:<the port actually bound>`. */
  publicUrl?: string;
  webhookSecret?: string;
  clientTokens: string[];
  merchantsFile?: string;
  clientRateLimitPerMin: number;
  upstreamTimeoutMs: number;
  corsOrigins: string[];
  /** REDIS_URL, or the REDIS_CLUSTER_NODES of a Redis Cluster; unset: everything in memory. */
  redis?: RedisTarget;
  /** Every Redis key and channel starts with it, so gateways of other deployments can share a Redis. */
  redisKeyPrefix: string;
  /** How long records and idempotency claims are kept after their last change, in memory or in Redis. */
  retentionSeconds: number;
  /** Without Redis: records one process holds at most (the oldest final ones go first; none final: creates refused). */
  memoryMaxRecords: number;
  logLevel: string;
  reconcile: { intervalMs: number; unknownAfterMs: number; pendingAfterMs: number };
  breakerResetMs: number;
  /** Node's http server limits, and open connections per client address (0: no cap). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; maxConnectionsPerIp: number };
  /** How long one wallet balance answer is served per merchant (0: ask the provider every time, still one call for concurrent askers). */
  walletBalanceCacheMs: number;
  /** Schema introspection and the Apollo Sandbox page at GET /graphql; turn both off in production if you wish. */
  introspection: boolean;
  landingPage: boolean;
  relay: {
    secret?: string;
    maxAttempts: number;
    retryBaseMs: number;
    /** Lets relays reach loopback, private and link-local addresses; by default only with the embedded sandbox. */
    allowPrivateNetworks: boolean;
    /** Bounds one relay attempt; a replica holds a job for twice this before another may take it. */
    timeoutMs: number;
    /** How often each replica looks for due relays, including those a lost replica left. */
    pollMs: number;
  };
  jwt: JwtConfig;
  sandbox: SandboxConfig;
}

/** `host:port,host:port` → the nodes a cluster client starts from. */
function clusterNodes(list: string): { host: string; port: number }[] {
  return list.split(',').map((node) => {
    const [host, port] = node.trim().split(':');
    return { host, port: Number(port) };
  });
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
  if (e.REDIS_URL && e.REDIS_CLUSTER_NODES) {
    throw new ConfigError('Invalid setting REDIS_CLUSTER_NODES: set either REDIS_URL or REDIS_CLUSTER_NODES, not both');
  }
  if (e.UPSTREAM_BASE_URL && !e.MERCHANT_API_KEY && !e.MERCHANTS_FILE) {
    throw new ConfigError('Missing setting MERCHANT_API_KEY: required when UPSTREAM_BASE_URL is set');
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid setting HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    upstreamBaseUrl: e.UPSTREAM_BASE_URL?.replace(/\/+$/, ''),
    merchantApiKey: e.MERCHANT_API_KEY,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    webhookSecret: e.WEBHOOK_SECRET,
    clientTokens: e.CLIENT_TOKENS,
    merchantsFile: e.MERCHANTS_FILE,
    clientRateLimitPerMin: e.CLIENT_RATE_LIMIT_PER_MIN,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    corsOrigins: e.CORS_ORIGINS,
    redis: e.REDIS_CLUSTER_NODES ? { cluster: clusterNodes(e.REDIS_CLUSTER_NODES) } : e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    retentionSeconds: e.RECORD_RETENTION_SECONDS,
    memoryMaxRecords: e.MEMORY_MAX_RECORDS,
    logLevel: e.LOG_LEVEL,
    reconcile: {
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
    },
    walletBalanceCacheMs: e.WALLET_BALANCE_CACHE_MS,
    introspection: e.GRAPHQL_INTROSPECTION,
    landingPage: e.GRAPHQL_LANDING_PAGE,
    relay: {
      secret: e.RELAY_WEBHOOK_SECRET,
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
    },
    sandbox: {
      port: e.SANDBOX_PORT,
      host: '127.0.0.1',
      settleMs: e.SANDBOX_SETTLE_MS,
      rateLimitPerMin: e.SANDBOX_RATE_LIMIT_PER_MIN,
      webhookSecret: e.SANDBOX_WEBHOOK_SECRET,
      latencyMs: e.SANDBOX_LATENCY_MS,
      openingBalance: e.SANDBOX_OPENING_BALANCE,
    },
  };
}
