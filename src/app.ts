import { redactSecrets, secretForms } from './observability/secret.redaction';
import { AuditCheckpointer } from './audit/audit.checkpointer';
import { LoadedAuditKeys, loadAuditKeys } from './audit/audit.keys.load';
import { DEV_KEY_FILE, loadOrCreateDevKey } from './auth/jwt.dev-key';
import { randomBytes } from 'node:crypto';
import { MerchantRegistry, webhookSecretForms } from './auth/merchant.registry';
import { CallbackReceiver } from './callbacks/callback.receiver';
import { Config, ConfigError } from './config';
import { Reconciler } from './disbursements/disbursement.reconciler';
import { ReconciliationRunner } from './disbursements/reconciliation.runner';
import { DisbursementService } from './disbursements/disbursement.service';
import { clientText } from './observability/client-text.limit';
import { createLogger, Logger } from './observability/pino.logger';
import { repeatedLine } from './observability/log.throttle';
import { GatewayMetrics } from './observability/gateway.metrics';
import { currentTraceparent, linksTo, ROOT_CONTEXT, SpanKind, traced } from './observability/tracing.spans';
import type { TracingSdk } from './observability/tracing.sdk';
import { RelaySender } from './relay/relay.sender';
import { RelayWorker } from './relay/relay.worker';
import { SandboxHandle, startSandbox } from './sandbox/sandbox.server';
import { listen, Listening, serve } from './server';
import { createStorage, Storage } from './app.storage';
import { databasePassword, shownTarget } from './database/database.target';
import { loadManifest } from './graphql/operations/trusted-documents.manifest';
import { BreakingProvider } from './upstream/upstream.breaker';
import { BudgetedProvider } from './upstream/provider.budget';
import { UpstreamClient } from './upstream/upstream.client';
import { SecretScrubber } from './upstream/secret.scrubber';

/** How long creates in flight may still finish at shutdown before they are answered OUTCOME_UNKNOWN; under the HTTP drain's 10 s. */
const CREATE_GRACE_MS = 8_000;

export interface AppOptions {
  config: Config;
  /** Where log lines go; default stdout. */
  logDestination?: NodeJS.WritableStream;
  /** Allow open access (no client tokens) with a provider given by UPSTREAM_BASE_URL, as tests and the bench do with their own sandbox. */
  trustedProvider?: boolean;
  /** Overrides CREATE_GRACE_MS (tests). */
  createGraceMs?: number;
  /** The OpenTelemetry SDK main.ts started (tracing.start.ts); its last spans are sent at close. */
  tracing?: TracingSdk;
}

export interface Gateway {
  url: string;
  port: number;
  service: DisbursementService;
  reconciler: Reconciler;
  merchants: MerchantRegistry;
  logger: Logger;
  /** Every secret the gateway knows; none may appear in a response or a log line. */
  secrets: readonly string[];
  /** The METRICS_PORT listener's address (/metrics, /healthz, /readyz), when there is one. */
  metricsUrl?: string;
  /** The callback address the provider is given for a merchant. */
  callbackUrl(merchantId: string): string;
  /** Store round trips so far (batching shows here). */
  storeReads(): number;
  close(): Promise<void>;
}

export interface App {
  gateway: Gateway;
  /** The embedded sandbox, when no UPSTREAM_BASE_URL was configured. */
  sandbox?: SandboxHandle;
  close(): Promise<void>;
}

/**
 * Starts the whole gateway from its configuration: merchants and logger, the embedded sandbox when
 * no provider is configured, then storage, the provider client, the domain, and the HTTP server.
 * main.ts, the tests and the bench all start it here. Throws ConfigError on a bad setting.
 */
export async function startApp(opts: AppOptions): Promise<App> {
  const embedded = !opts.config.upstreamBaseUrl;
  const webhookSecret = embedded
    ? (opts.config.webhookSecret ?? opts.config.sandbox.webhookSecret ?? `whsec_${randomBytes(24).toString('base64')}`)
    : opts.config.webhookSecret;
  const merchants = MerchantRegistry.fromConfig(opts.config, embedded || opts.trustedProvider === true);
  const dbPassword = databasePassword(opts.config.database);
  const ownerPassword =
    opts.config.databaseOwnerUrl && databasePassword({ engine: 'postgres', url: opts.config.databaseOwnerUrl });
  const audit = await loadAuditKeys(opts.config);
  const secrets = [
    ...merchants.secrets(),
    ...audit.secrets,
    ...(dbPassword ? [dbPassword] : []),
    ...(ownerPassword ? [ownerPassword] : []),
    ...webhookSecretForms(webhookSecret),
    ...webhookSecretForms(opts.config.relay.secret),
  ];
  const logger = createLogger({ level: opts.config.logLevel, secrets, destination: opts.logDestination });
  // The embedded sandbox doubles as a development identity provider: `npm run token` signs with this key.
  const devKey = embedded ? await loadOrCreateDevKey() : undefined;
  const sandbox = embedded
    ? await startSandbox({
        ...opts.config.sandbox,
        webhookSecret,
        logger,
        jwks: devKey && { keys: [devKey.publicJwk] },
      })
    : undefined;
  try {
    const config = { ...opts.config, upstreamBaseUrl: sandbox?.url ?? opts.config.upstreamBaseUrl, webhookSecret };
    const developmentJwksUrl = sandbox && `${sandbox.url}/.well-known/jwks.json`;
    const gateway = await startGateway(
      config,
      merchants,
      logger,
      secrets,
      audit,
      opts.createGraceMs ?? CREATE_GRACE_MS,
      developmentJwksUrl,
    );
    if (sandbox) {
      logger.info(`embedded sandbox provider at ${sandbox.url}`);
      if (!config.jwt.jwksUrl)
        logger.info(`development JWTs accepted: mint one with npm run token (key in ${DEV_KEY_FILE})`);
    }
    return {
      gateway,
      sandbox,
      async close() {
        await gateway.close();
        await sandbox?.close();
        await opts.tracing?.shutdown();
      },
    };
  } catch (error) {
    await sandbox?.close();
    throw error;
  }
}

/**
 * The database of DATABASE_URL, opened and migrated, named in the log. One that cannot be opened
 * stops startup with one line naming the setting (never its value, which may hold a password).
 */
async function openStorage(
  config: Config,
  logger: Logger,
  metrics: GatewayMetrics,
  chainKey: Buffer,
): Promise<Storage> {
  const shown = shownTarget(config.database);
  let storage: Storage;
  try {
    storage = await createStorage(config, logger, metrics, chainKey);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Written and percent-encoded: a driver message may echo the URL.
    const owner = config.databaseOwnerUrl && databasePassword({ engine: 'postgres', url: config.databaseOwnerUrl });
    const reason = redactSecrets(message, secretForms([databasePassword(config.database) ?? '', owner || '']));
    throw new ConfigError(`Cannot open the database of DATABASE_URL (${shown}): ${reason}`);
  }
  logger.info(`records kept in the ${shown}`);
  if (config.database.engine === 'postgres' && !config.databaseOwnerUrl)
    logger.warn(
      "DATABASE_OWNER_URL is unset: DATABASE_URL's role both owns the schema and runs the gateway, so it could lift the audit trail's guards; give the gateway a role of its own in production",
    );
  if (config.retiredSettings) logger.warn(config.retiredSettings);
  if (storage.rewoundAtStart) logger.warn(`the database went back in time: ${storage.rewoundAtStart}`);
  const rewoundAt = storage.rewoundAt();
  if (rewoundAt !== undefined && Date.now() < rewoundAt + config.restoreCheckMs)
    logger.warn(
      `until ${new Date(rewoundAt + config.restoreCheckMs).toISOString()}, every create of a referenceId the database does not know asks the provider first: it may have been sent before the database went back`,
    );
  return storage;
}

async function startGateway(
  config: Config,
  merchants: MerchantRegistry,
  logger: Logger,
  secrets: readonly string[],
  audit: LoadedAuditKeys,
  createGraceMs: number,
  developmentJwksUrl?: string,
): Promise<Gateway> {
  if (!config.upstreamBaseUrl) throw new Error('the gateway needs an upstream base URL');
  // Read before the port is bound: a manifest that cannot be used stops startup with nothing to close.
  const trustedOperations = config.trustedDocuments && loadManifest(config.trustedDocuments.path);
  const metrics = new GatewayMetrics();
  const auditKeys = audit.keys;
  const storage = await openStorage(config, logger, metrics, auditKeys.chainKey);
  if (audit.developmentFile) {
    const line = `audit checkpoints signed with the development key in ${audit.developmentFile}`;
    // With the embedded sandbox this is development; with a real provider, say it louder.
    if (developmentJwksUrl) logger.info(line);
    else logger.warn(`AUDIT_SIGNING_KEY is unset: ${line}; set it to a key kept outside the database`);
  }
  let listening: Listening;
  try {
    listening = await listen(config);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const { port } = listening;
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
  const callbackUrl = (merchantId: string) => `${publicUrl}/callbacks/${merchants.byId(merchantId)?.callbackToken}`;

  const upstream = new UpstreamClient({
    baseUrl: config.upstreamBaseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    callbackUrl: (merchant) => callbackUrl(merchant.id),
    secrets,
    logger,
    observe: (endpoint, status, seconds) => metrics.providerLatency.observe({ endpoint, status }, seconds),
  });
  const { store, events, relayQueue, runs } = storage;
  const breaking = new BreakingProvider(upstream, {
    resetTimeoutMs: config.breakerResetMs,
    onStateChange: (merchantId, endpoint, state) => {
      logger.warn({ merchant: merchantId, endpoint, state }, 'provider circuit changed');
      metrics.providerCircuitOpen.set({ merchant: merchantId, endpoint }, state === 'open' ? 1 : 0);
    },
  });
  // Outside the breaker: what the budget holds back never reaches the provider, nor counts as its failure.
  const provider = new BudgetedProvider(breaking, {
    ledger: storage.budget,
    providerUrl: config.upstreamBaseUrl,
    perMinute: config.upstreamRateLimitPerMin,
    onSpend: (merchant, purpose) => metrics.providerBudgetSpent.inc({ merchant, purpose }),
    onRefuse: (merchant, purpose, reason) => metrics.providerBudgetRefused.inc({ merchant, purpose, reason }),
  });
  const relaySender = new RelaySender({
    secret: config.relay.secret,
    timeoutMs: config.relay.timeoutMs,
    allowPrivateNetworks: config.relay.allowPrivateNetworks,
  });
  // Lines a database outage repeats on every round: each at most five a minute (docs/operations.md).
  const roundFailed = repeatedLine(logger, 'error', 'reconciler round failed');
  const stepFailed = repeatedLine(logger, 'error', 'reconciliation run step failed');
  const relay = new RelayWorker({
    queue: relayQueue,
    sender: relaySender,
    // The service is built just below; attempts are noted only once relays run, after start-up.
    noteAttempt: (merchantId, referenceId, attempt) => service.noteRelayAttempt(merchantId, referenceId, attempt),
    logger,
    maxAttempts: config.relay.maxAttempts,
    retryBaseMs: config.relay.retryBaseMs,
    pollMs: config.relay.pollMs,
    leaseMs: 2 * config.relay.timeoutMs,
  });
  const service = new DisbursementService({
    store,
    records: store,
    book: store,
    auditKeys,
    runs,
    events,
    provider,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    resendAfterMs: config.resendAfterMs,
    restoreCheckMs: config.restoreCheckMs,
    rewoundAt: () => storage.rewoundAt(),
    walletBalanceCacheMs: config.walletBalanceCacheMs,
    reconcile: {
      unknownAfterMs: config.reconcile.unknownAfterMs,
      pendingAfterMs: config.reconcile.pendingAfterMs,
      maxDelayMs: 10 * 60_000,
    },
    onFinal: (record) => {
      metrics.finalPayouts.inc({ status: record.status });
      relay.wakeFor(record);
    },
    payoutDayTimeZone: config.payoutDayTimeZone,
    scheduleLateLimitMs: config.schedule.lateLimitMs,
    onControl: (event) => {
      metrics.payoutControls.inc({ action: event.action, ...(event.limit && { limit: event.limit }) });
      logger.info(
        {
          merchant: event.merchantId,
          referenceId: event.referenceId,
          // A JWT's subject, as long as the identity provider made it.
          actor: clientText(event.actor) ?? null,
          action: event.action,
          limit: event.limit,
        },
        'payout control',
      );
    },
    traceparent: currentTraceparent,
    onMismatch: (mismatch) => {
      metrics.callbackMismatches.inc();
      logger.warn(mismatch, 'callback contradicted by the provider; its answer applied');
    },
  });
  const reconciler = new Reconciler({
    service: {
      lease: (record, until) => service.lease(record, until),
      // A scheduled payout's send runs long after its create: a new trace, linked to the create's.
      reconcile: (merchant, record) =>
        record.status === 'SCHEDULED'
          ? traced(
              'scheduled send',
              {
                kind: SpanKind.INTERNAL,
                parent: ROOT_CONTEXT,
                links: linksTo(record.traceparent),
                attributes: { 'merchant.id': merchant.id, 'payout.reference_id': record.referenceId },
              },
              () => service.reconcile(merchant, record),
            )
          : service.reconcile(merchant, record),
    },
    store,
    merchantById: (id) => merchants.byId(id),
    intervalMs: config.reconcile.intervalMs,
    onError: (error) => roundFailed({ err: error }),
  });
  const reconciliations = new ReconciliationRunner({
    ...service.reconciliation,
    merchantById: (id) => merchants.byId(id),
    intervalMs: config.reconcile.intervalMs,
    onError: (error) => stepFailed({ err: error }),
  });
  const callbacks = new CallbackReceiver({
    service,
    merchants,
    webhookSecret: config.webhookSecret,
    logger,
    metrics,
    scrubber: new SecretScrubber(secrets),
  });
  const server = await serve(listening, {
    config,
    logger,
    merchants,
    metrics,
    storage,
    service,
    reconciler,
    callbacks,
    developmentJwksUrl,
    trustedOperations,
  });
  const checkpointer = new AuditCheckpointer({
    store,
    keys: auditKeys,
    intervalMs: config.audit.checkpointSeconds * 1000,
    logger,
  });
  await checkpointer.start();
  reconciler.start();
  reconciliations.start();
  relay.start();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    service,
    reconciler,
    merchants,
    logger,
    secrets,
    metricsUrl: server.metricsPort === undefined ? undefined : `http://127.0.0.1:${server.metricsPort}`,
    callbackUrl,
    storeReads: () => store.reads,
    async close() {
      server.stopAccepting();
      await reconciler.stop();
      await reconciliations.stop();
      // Creates still running after the grace are answered OUTCOME_UNKNOWN, so the HTTP drain can finish.
      await Promise.all([service.drain(createGraceMs), server.close()]);
      await relay.stop();
      await relaySender.close();
      breaking.shutdown();
      await upstream.close();
      // After every write: the last entries are signed too.
      await checkpointer.stop();
      await storage.close();
    },
  };
}
