import { z } from 'zod';
import { DEFAULT_SQLITE_PATH } from './database/database.target';
import { auditSigningKeys } from './disbursements/audit.keys';
import { isTimeZone } from './disbursements/payout.controls';

/** An http(s) address: every URL setting, and audit:verify's `--witness`. */
export const httpUrl = z.url({ protocol: /^https?$/ });

/**
 * Every setting the gateway reads, by topic: its name, type, default and meaning, written once. config.ts turns the
 * validated environment into the Config the wiring uses; docs/configuration.md is generated from SETTINGS.
 */

const port = z.coerce.number().int().min(0).max(65535);
const nonNegativeInt = z.coerce.number().int().min(0);
const optionalText = z.string().trim().min(1).optional();
/** A setting that lists values separated by `separator`, each trimmed, empty ones dropped. */
const listBy = (separator: string | RegExp) =>
  z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(separator).flatMap((s) => (s.trim() ? [s.trim()] : [])));
/** Several secrets separated by spaces, as a rotation holds them: the new one and the old one. */
const secretList = listBy(/\s+/);
const WHSEC = /^whsec_[A-Za-z0-9+/=]{16,}$/;
const list = listBy(',');

/** One or more Ed25519 private keys, PKCS#8 PEM one after another, none twice (audit.keys.ts reads them). */
function isEd25519PrivateKeyList(pem: string): boolean {
  try {
    return auditSigningKeys(pem).length > 0;
  } catch {
    return false;
  }
}

/** A setting's meaning, and what being unset means when that is not simply its default. */
const doc = <T extends z.ZodType>(schema: T, description: string, unset?: string): T =>
  schema.meta({ description, ...(unset && { unset }) });

const listen = {
  PORT: doc(port.default(4000), 'port the gateway listens on (0: any free port)'),
  HOST: doc(z.string().min(1).default('0.0.0.0'), 'address the gateway listens on'),
  PUBLIC_URL: doc(
    httpUrl.optional(),
    'address at which the provider reaches this gateway (callbacks)',
    '`http://localhost:$PORT`',
  ),
  CORS_ORIGINS: doc(
    list,
    'comma-separated browser origins allowed to call the gateway, over HTTP and websockets',
    'none but same-origin',
  ),
  HTTP_HEADERS_TIMEOUT_MS: doc(
    z.coerce.number().int().min(1).default(10_000),
    'a connection whose request headers take longer is dropped (slow-header attacks)',
  ),
  HTTP_REQUEST_TIMEOUT_MS: doc(
    z.coerce.number().int().min(1).default(30_000),
    'the same for the whole request, body included (websockets are not affected once open)',
  ),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: doc(
    z.coerce.number().int().min(1).default(65_000),
    "idle keep-alive connections are closed after it; keep it above your load balancer's idle timeout",
  ),
  MAX_CONNECTIONS_PER_IP: doc(
    nonNegativeInt.default(4096),
    'open connections (HTTP and websockets) per client address (0: no cap); a dashboard holds one per stream, so behind a balancer raise it or use 0',
  ),
  MAX_SUBSCRIPTIONS_PER_CLIENT: doc(
    nonNegativeInt.default(20_000),
    'operations one client (a token, a JWT user, or an address without a token) may run at once over websockets, multipart and SSE, in one process (0: no cap)',
  ),
  GRAPHQL_INTROSPECTION: doc(z.stringbool().default(true), 'schema introspection'),
  GRAPHQL_LANDING_PAGE: doc(z.stringbool().default(true), 'the Apollo Sandbox page at `GET /graphql`'),
  METRICS_PORT: doc(
    port.optional(),
    'serve `/metrics`, `/healthz` and `/readyz` on this port, a listener of their own kept off the API (0: any free port)',
    '`/metrics` is served on the API port',
  ),
  LOG_LEVEL: doc(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    'pino log level',
  ),
};

const provider = {
  UPSTREAM_BASE_URL: doc(httpUrl.optional(), 'provider base address', 'start the embedded sandbox and use it'),
  MERCHANT_API_KEY: doc(
    optionalText,
    'merchant key sent as `x-api-key`',
    'required with UPSTREAM_BASE_URL (or MERCHANTS_FILE)',
  ),
  WEBHOOK_SECRET: doc(
    secretList.refine((secrets) => secrets.every((s) => WHSEC.test(s)), 'each must be whsec_ followed by base64'),
    'Standard Webhooks secret (`whsec_...`) that verifies callbacks; several separated by spaces while one is rotated (a callback signed with any of them is verified)',
    'callbacks are claims, confirmed with check-status before they decide anything',
  ),
  UPSTREAM_TIMEOUT_MS: doc(
    z.coerce.number().int().min(1).default(15000),
    'how long a provider call may take before its outcome counts as unknown',
  ),
  RESEND_AFTER_SECONDS: doc(
    nonNegativeInt.default(60),
    'after an outcome that may have reached the provider, how long since that send left the gateway before a provider "not found" is trusted to mean "never received" (and the payout may be sent again)',
  ),
  UPSTREAM_RATE_LIMIT_PER_MIN: doc(
    nonNegativeInt.default(100),
    'provider calls the gateway makes per merchant key per minute, across replicas; status checks get at most half (0: no budget; a provider 429 still pauses)',
  ),
  UPSTREAM_BREAKER_RESET_MS: doc(
    z.coerce.number().int().min(1).default(10000),
    "how long a merchant's provider circuit stays open before a trial call",
  ),
  WALLET_BALANCE_CACHE_MS: doc(
    nonNegativeInt.default(5000),
    'how long one `walletBalance` answer is served per merchant (0: ask every time; concurrent askers still share one call)',
  ),
};

const access = {
  CLIENT_TOKENS: doc(
    list,
    'comma-separated bearer tokens that clients present',
    'open access, allowed only with the embedded sandbox',
  ),
  MERCHANTS_FILE: doc(
    optionalText,
    'several merchants: a JSON array of `{"id", "apiKey", "clientTokens": [...], "webhookSecret"?}`; each client sees only its merchant\'s payouts',
    'one merchant, `default`',
  ),
  CLIENT_RATE_LIMIT_PER_MIN: doc(
    nonNegativeInt.default(600),
    'operations each client may send per minute (0: no limit)',
  ),
  JWT_JWKS_URL: doc(
    httpUrl.optional(),
    "identity provider's key set: bearer JWTs accepted beside shared tokens",
    "no JWTs, except the embedded sandbox's development keys",
  ),
  JWT_ISSUER: doc(optionalText, 'required `iss` of those JWTs', 'required with JWT_JWKS_URL'),
  JWT_AUDIENCE: doc(optionalText, 'required `aud` of those JWTs', 'required with JWT_JWKS_URL'),
  JWT_MERCHANT_CLAIM: doc(
    z.string().trim().min(1).default('merchant_id'),
    "claim that names the caller's merchant (a merchant id: `default` without MERCHANTS_FILE)",
  ),
  JWT_JWKS_COOLDOWN_MS: doc(
    nonNegativeInt.default(30_000),
    'least time between two key set fetches, failed ones too (a token with an unknown `kid` fetches again after it)',
  ),
  JWT_JWKS_MAX_STALE_SECONDS: doc(
    z.coerce.number().int().min(0).default(86_400),
    "how long the last good key set keeps verifying tokens while the identity provider's key set cannot be fetched",
  ),
};

const storage = {
  DATABASE_URL: doc(
    optionalText,
    '`postgres://user:password@host:5432/db` (any number of replicas share it) or `sqlite:<path>` (an embedded file, one process): payouts, their history, claims, the change log, reservations, relay jobs and provider budgets',
    `the embedded SQLite file \`${DEFAULT_SQLITE_PATH}\` in the working folder`,
  ),
  DATABASE_OWNER_URL: doc(
    optionalText,
    "PostgreSQL only: the role that runs the migrations and owns the schema; the gateway then runs as DATABASE_URL's role with only what the migrations grant it, so it cannot lift the audit trail's guards",
    "DATABASE_URL's role is both (development; the gateway says so at start)",
  ),
  RECORD_RETENTION_SECONDS: doc(
    z.coerce
      .number()
      .int()
      .refine((v) => v === 0 || v >= 60, 'must be 0 (keep forever) or at least 60')
      .default(0),
    'how long a final payout is kept after its last change (0: forever); its referenceId stays taken for as long as it is kept',
  ),
  EVENT_RETENTION_SECONDS: doc(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .default(24 * 3600),
    "how long each merchant's payout changes are kept for `disbursementEvents(after:)` to replay (1 s to 7 days)",
  ),
};

const rechecksAndRelays = {
  RECONCILE_INTERVAL_MS: doc(
    z.coerce.number().int().min(10).default(1000),
    'how often the status rechecker looks for payouts due a status check, and reconciliation runs take their next step',
  ),
  RECONCILE_UNKNOWN_AFTER_MS: doc(
    z.coerce.number().int().min(1).default(2000),
    'first status check after an unknown outcome (doubles, up to 10 min)',
  ),
  RECONCILE_PENDING_AFTER_MS: doc(
    z.coerce.number().int().min(1).default(60000),
    'how long a PENDING payout may wait for its callback before the provider is asked',
  ),
  RELAY_WEBHOOK_SECRET: doc(
    secretList.refine((secrets) => secrets.every((s) => WHSEC.test(s)), 'each must be whsec_ followed by base64'),
    "`whsec_...` secret the gateway signs relays to a client's `callbackUrl` with; several separated by spaces while one is rotated (each relay then carries one signature per secret)",
    'relays are sent unsigned',
  ),
  RELAY_MAX_ATTEMPTS: doc(
    z.coerce.number().int().min(1).max(30).default(8),
    'relay attempts before a relay is given up',
  ),
  RELAY_RETRY_BASE_MS: doc(z.coerce.number().int().min(1).default(1000), 'first relay backoff (it doubles)'),
  RELAY_TIMEOUT_MS: doc(
    z.coerce.number().int().min(1).default(5000),
    'how long one relay attempt may take; a replica holds a relay for twice this before another may take it',
  ),
  RELAY_POLL_INTERVAL_MS: doc(
    z.coerce.number().int().min(10).default(1000),
    'how often each replica looks for due relays (including those a lost replica left)',
  ),
  RELAY_ALLOW_PRIVATE_NETWORKS: doc(
    z.stringbool().optional(),
    'let relays reach loopback, private, link-local and other non-public addresses',
    'false; true with the embedded sandbox',
  ),
};

/** An Ed25519 private key in PKCS#8 PEM; a written backslash-n stands for a line break, as one-line secret stores keep it. */
const ed25519Pem = z
  .string()
  .transform((v) => v.replaceAll('\\n', '\n').trim())
  .refine(
    isEd25519PrivateKeyList,
    'must be an Ed25519 private key in PKCS#8 PEM (openssl genpkey -algorithm ed25519), or several one after another, none twice',
  );

const audit = {
  AUDIT_SIGNING_KEY: doc(
    ed25519Pem.optional(),
    "Ed25519 private key (PKCS#8 PEM) that signs each merchant's audit checkpoints; the key of each entry's HMAC (and of each held or scheduled payout's seal) is derived from it. Several keys, one PEM after another, rotate it: the first signs and keys what is written, every one still verifies what it made; entries and checkpoints name their key by `keyId`. Keep it out of the database",
    'a development key in `.dev/audit-key.pem`, made at first start (a warning says so when a provider is configured)',
  ),
  AUDIT_CHECKPOINT_SECONDS: doc(
    z.coerce.number().int().min(1).max(3600).default(5),
    "how often each merchant's audit chain head is signed when it moved (and always at shutdown), 1 s to 1 h: entries written since the last checkpoint are those an insider could cut unnoticed",
  ),
  AUDIT_CHECKPOINT_FILE: doc(
    optionalText,
    "the file, outside the database, to which the gateway appends every checkpoint it signs (one JSON object a line); `audit:verify` checks against it, and the gateway logs an error at start on a trail shorter than it signed. Keep it where the database's keepers cannot rewrite it",
    'beside the embedded file (`.data/gateway.audit-checkpoints.jsonl`); on PostgreSQL `.data/audit-checkpoints-<host>-<port>-<database>.jsonl` in the working folder',
  ),
  AUDIT_WITNESS_URL: doc(
    httpUrl
      .refine((u) => new URL(u).username === '' && new URL(u).password === '', {
        message: 'must not carry a user or password: its token goes in AUDIT_WITNESS_TOKEN',
      })
      .optional(),
    "a witness the database's keepers cannot rewrite: the gateway POSTs every checkpoint it signs there (JSON lines, the checkpoint file's format), in the background, retrying until it answers 2xx, so no payout waits for it; a `GET` answers every checkpoint it keeps, which `audit:verify` checks the trail against. Set it in production (a provider configured)",
    'checkpoints are kept only in the database and AUDIT_CHECKPOINT_FILE: said at start (a warning when a provider is configured), in `/readyz` (`auditWitness: "none"`) and in `gateway_audit_checkpoints_local_only`',
  ),
  AUDIT_WITNESS_TOKEN: doc(
    z.string().trim().min(16, 'must be at least 16 characters').optional(),
    'bearer token sent to AUDIT_WITNESS_URL (`authorization: Bearer …`), by the gateway and by `audit:verify`; a secret, never logged',
    'no `authorization` header',
  ),
};

const controls = {
  PAYOUT_CONTROLS: doc(
    optionalText,
    'the single merchant\'s payout controls as JSON (`approvalAbove`, `maxAmount`, `dailyLimit`, `userDailyLimit` per currency; `approvalTtlSeconds`; `beneficiaryApproval`, `newPayeeHoldSeconds` for the beneficiary book); `MERCHANTS_FILE` entries carry their own `"controls"`',
    'no controls: every payout is sent at once',
  ),
  PAYOUT_DAY_TIMEZONE: doc(
    z.string().trim().refine(isTimeZone, 'must be an IANA time zone such as UTC or Africa/Lusaka').default('UTC'),
    'IANA time zone whose calendar day the daily payout limits count',
  ),
  SCHEDULE_LATE_LIMIT_SECONDS: doc(
    z.coerce.number().int().min(1).default(86400),
    'how long after its `sendAt` a scheduled payout may still be sent (the gateway was down, the provider refused meanwhile); later it becomes EXPIRED, never sent',
  ),
  SCHEDULE_MAX_AHEAD_DAYS: doc(
    z.coerce.number().int().min(1).max(3660).default(366),
    'how far ahead a `sendAt` may be; further is BAD_USER_INPUT naming `input.sendAt`',
  ),
};

const operations = {
  OTEL_EXPORTER_OTLP_ENDPOINT: doc(
    httpUrl.optional(),
    'OTLP/HTTP collector base address; traces go to `<it>/v1/traces`. Any of the OTEL_ variables here but the protocol, sampler argument and SDK switch turns tracing on',
    'no tracing: the SDK is not even loaded',
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: doc(
    httpUrl.optional(),
    'full OTLP/HTTP address for traces, used as is (wins over OTEL_EXPORTER_OTLP_ENDPOINT)',
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: doc(
    z.enum(['http/json', 'http/protobuf']).optional(),
    'OTLP/HTTP encoding of exported traces (grpc is not offered)',
    '`http/json`',
  ),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: doc(
    z.enum(['http/json', 'http/protobuf']).optional(),
    'the same for traces only (wins over OTEL_EXPORTER_OTLP_PROTOCOL)',
  ),
  OTEL_SERVICE_NAME: doc(optionalText, '`service.name` of every span', '`payout-gateway`'),
  OTEL_TRACES_SAMPLER: doc(
    z
      .enum([
        'always_on',
        'always_off',
        'traceidratio',
        'parentbased_always_on',
        'parentbased_always_off',
        'parentbased_traceidratio',
      ])
      .optional(),
    'which traces are kept',
    '`parentbased_always_on` (a sampled client traceparent is followed)',
  ),
  OTEL_TRACES_SAMPLER_ARG: doc(
    z.coerce.number().min(0).max(1).optional(),
    'the ratio of the traceidratio samplers, 0 to 1',
  ),
  OTEL_TRACES_EXPORTER: doc(
    z.enum(['otlp', 'none']).optional(),
    '`otlp` turns tracing on with the defaults; `none` turns it off',
  ),
  OTEL_SDK_DISABLED: doc(z.stringbool().optional(), '`true` turns tracing off whatever else is set', 'false'),
  TRUSTED_DOCUMENTS: doc(
    optionalText,
    "path of a trusted documents manifest (Apollo's persisted query manifest or GraphQL Code Generator's `persisted-documents.json`): only its operations run",
    'any operation runs',
  ),
  TRUSTED_DOCUMENTS_MODE: doc(
    z.enum(['enforce', 'log']).default('enforce'),
    '`enforce`: refuse operations not in TRUSTED_DOCUMENTS; `log`: run them, but log and count them',
  ),
  TRUSTED_DOCUMENTS_ROUTER_TOKENS: doc(
    secretList.refine((tokens) => tokens.every((t) => t.length >= 32), 'each must be at least 32 characters'),
    "secrets a supergraph router sends as `x-router-token` (several separated by spaces while one is rotated): the operations it plans skip TRUSTED_DOCUMENTS, which the router enforces itself; the caller's credential, scopes, quotas and query limits still apply",
    'none',
  ),
};

const sandbox = {
  SANDBOX_PORT: doc(port.default(4010), 'port of the embedded sandbox (0: any free port)'),
  SANDBOX_SETTLE_MS: doc(nonNegativeInt.default(2000), 'delay before the sandbox settles a payout and calls back'),
  SANDBOX_RATE_LIMIT_PER_MIN: doc(nonNegativeInt.default(120), 'sandbox requests per key per minute (0: no limit)'),
  SANDBOX_WEBHOOK_SECRET: doc(
    optionalText,
    'secret the sandbox signs callbacks with',
    'generated at start and shared with the gateway',
  ),
  SANDBOX_PROVIDER_SHAPES: doc(
    z.stringbool().default(false),
    "`true`: the sandbox answers in the real provider's shapes (`AirtelMoney`, `MtnMoney`, `ZamtelKwacha`; a balance without currency)",
  ),
  SANDBOX_LATENCY_MS: doc(nonNegativeInt.default(0), 'latency the sandbox adds to every answer'),
  SANDBOX_INTAKE_MS: doc(
    nonNegativeInt.default(2500),
    'how long the sandbox takes to take in a create for an account ending in 425: until then check-status answers 404 and the create is not answered',
  ),
  SANDBOX_OPENING_BALANCE: doc(
    z
      .string()
      .regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be an amount such as 1000000 or 2500.50')
      .transform(Number)
      .default(1_000_000),
    "the sandbox wallet's opening balance per key",
  ),
};

/** Every setting, by topic: the one place a setting's name, type, default and meaning are written (docs/configuration.md is generated from it). */
export const SETTINGS = {
  'Listening, HTTP and GraphQL': listen,
  'The provider': provider,
  'Clients and access': access,
  'Payout controls': controls,
  'Storage and replicas': storage,
  'Status rechecks and relays': rechecksAndRelays,
  'Audit trail': audit,
  'Traces and trusted documents': operations,
  'The embedded sandbox': sandbox,
};

/** The environment the gateway reads: every setting of every topic. */
export const envSchema = z.object({
  ...listen,
  ...provider,
  ...access,
  ...controls,
  ...storage,
  ...rechecksAndRelays,
  ...audit,
  ...operations,
  ...sandbox,
});

/** The settings as validated: each by its name. */
export type Settings = z.output<typeof envSchema>;
