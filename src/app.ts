import { randomBytes } from 'node:crypto';
import { AuditCheckpointer } from './audit/audit.checkpointer';
import { CheckpointWitness } from './audit/audit.witness';
import { LoadedAuditKeys, loadAuditKeys } from './audit/audit.keys.load';
import { DEV_KEY_FILE, loadOrCreateDevKey } from './auth/jwt.dev-key';
import { MerchantRegistry } from './auth/merchant.registry';
import { Config, ConfigError } from './config';
import { SECRETS } from './config.secrets';
import { shownTarget } from './database/database.target';
import { EntryKey } from './disbursements/audit.entry';
import { DisbursementService } from './disbursements/disbursement.service';
import { loadManifest } from './graphql/operations/trusted-documents.manifest';
import { GatewayMetrics } from './observability/gateway.metrics';
import { createLogger, Logger } from './observability/pino.logger';
import { redactSecrets, SecretList, secretForms } from './observability/secret.redaction';
import type { TracingSdk } from './observability/tracing.sdk';
import { SandboxHandle, startSandbox } from './sandbox/sandbox.server';
import { buildService } from './app.domain';
import { listen, serve } from './app.http';
import { LoopEntry, WorkLoop } from './app.loop';
import { Opened } from './app.opened';
import { merchantsReloader, ReloadOutcome } from './app.reload';
import { connectProvider } from './app.provider';
import { createStorage, Storage } from './app.storage';
import { startRelays, startStatusChecks } from './app.workers';

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
  /** The due loop's place on the work loop (a test pauses it). */
  dueLoop: LoopEntry;
  merchants: MerchantRegistry;
  logger: Logger;
  /** Every secret the gateway knows (a reload adds to it); none may appear in a response or a log line. */
  secrets: SecretList;
  /** The METRICS_PORT listener's address (/metrics, /healthz, /readyz), when there is one. */
  metricsUrl?: string;
  /** The callback address the provider is given for a merchant. */
  callbackUrl(merchantId: string): string;
  /** Reads MERCHANTS_FILE again and applies it whole, or changes nothing and says why (main.ts calls it on SIGHUP). */
  reloadMerchants(operator?: string): Promise<ReloadOutcome>;
  /** The store's requests to the database so far (`databaseCalls`: batching shows here). */
  storeCalls(): number;
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
  // The embedded sandbox signs with the first of WEBHOOK_SECRET's secrets, as a provider signs with the new one.
  const webhookSecrets = embedded
    ? opts.config.webhookSecrets.length > 0
      ? opts.config.webhookSecrets
      : [opts.config.sandbox.webhookSecret ?? `whsec_${randomBytes(24).toString('base64')}`]
    : opts.config.webhookSecrets;
  const merchants = MerchantRegistry.fromConfig(opts.config, embedded || opts.trustedProvider === true);
  const audit = await loadAuditKeys(opts.config);
  // The embedded sandbox doubles as a development identity provider: `npm run token` signs with this key.
  const devKey = embedded ? await loadOrCreateDevKey() : undefined;
  // What the settings and the merchants hold, and what this start made or read from a file (config.secrets.ts).
  const secrets = new SecretList([
    ...opts.config.secrets,
    ...merchants.secrets(),
    ...audit.secrets,
    ...webhookSecrets.flatMap(SECRETS.webhookSecrets.forms),
    ...(devKey?.privateJwk.d ? SECRETS.developmentJwtKey.forms(devKey.privateJwk.d) : []),
  ]);
  const logger = createLogger({ level: opts.config.logLevel, secrets, destination: opts.logDestination });
  const sandbox = embedded
    ? await startSandbox({
        ...opts.config.sandbox,
        webhookSecret: webhookSecrets[0],
        logger,
        jwks: devKey && { keys: [devKey.publicJwk] },
      })
    : undefined;
  try {
    const config = { ...opts.config, upstreamBaseUrl: sandbox?.url ?? opts.config.upstreamBaseUrl, webhookSecrets };
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
  entryKey: EntryKey,
): Promise<Storage> {
  const shown = shownTarget(config.database);
  let storage: Storage;
  try {
    storage = await createStorage(config, logger, metrics, entryKey);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Written and percent-encoded: a driver message may echo the URL.
    const reason = redactSecrets(message, secretForms(config.secrets));
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
  if (rewoundAt !== undefined && Date.now() < rewoundAt + config.resendAfterMs)
    logger.warn(
      `until ${new Date(rewoundAt + config.resendAfterMs).toISOString()}, a payout the provider does not show when asked before its send is not sent (OUTCOME_UNKNOWN): a send from before the database went back may still be on its way in`,
    );
  return storage;
}

/**
 * The audit checkpointer: it signs at start, every AUDIT_CHECKPOINT_SECONDS, and once more at stop,
 * publishing to the witness when there is one. With the embedded sandbox the gateway is in
 * development; with a provider configured, in production, where a development key, or checkpoints
 * kept only beside the database, are warnings.
 */
async function startCheckpointer(
  config: Config,
  merchants: MerchantRegistry,
  storage: Storage,
  audit: LoadedAuditKeys,
  logger: Logger,
  metrics: GatewayMetrics,
  developmentJwksUrl?: string,
): Promise<AuditCheckpointer> {
  // The embedded sandbox means development; a provider configured, production: say it louder.
  const production = developmentJwksUrl === undefined;
  if (audit.developmentFile) {
    const line = `audit checkpoints signed with the development key in ${audit.developmentFile}`;
    if (production) logger.warn(`AUDIT_SIGNING_KEY is unset: ${line}; set it to a key kept outside the database`);
    else logger.info(line);
  }
  const [inUse, ...older] = audit.keys;
  logger.info(
    { auditKeyId: inUse.keyId, olderAuditKeyIds: older.map((k) => k.keyId) },
    `audit entries keyed and checkpoints signed with key ${inUse.keyId}${older.length > 0 ? `; older keys still verify what they made` : ''}`,
  );
  const { witnessUrl, witnessToken, checkpointFile } = config.audit;
  metrics.auditCheckpointsLocalOnly.set(witnessUrl ? 0 : 1);
  if (witnessUrl) logger.info(`audit checkpoints are also published to the witness at ${new URL(witnessUrl).origin}`);
  else {
    const line = `AUDIT_WITNESS_URL is unset: the signed audit checkpoints are kept only in the database and in ${checkpointFile}, where whoever can rewrite the database can rewrite them too; set it to a witness they cannot`;
    if (production) logger.warn(line);
    else logger.info(line);
  }
  const witness =
    witnessUrl === undefined
      ? undefined
      : new CheckpointWitness({
          url: witnessUrl,
          token: witnessToken,
          logger,
          onPending: (count) => metrics.auditWitnessPending.set(count),
        });
  const checkpointer = new AuditCheckpointer({
    store: storage.store,
    keys: audit.keys,
    intervalMs: config.audit.checkpointSeconds * 1000,
    logger,
    file: checkpointFile,
    merchantIds: () => merchants.ids(),
    witness,
  });
  try {
    await checkpointer.start();
  } catch (error) {
    await witness?.close();
    throw error;
  }
  return checkpointer;
}

/**
 * The gateway, step by step: each step's closer is registered as it opens, so shutdown (and a
 * start-up that fails part way) closes them in reverse: status checks, then the HTTP drain, then
 * relays, the loop, the provider, the checkpointer (after every write), and storage last.
 */
async function startGateway(
  config: Config,
  merchants: MerchantRegistry,
  logger: Logger,
  secrets: SecretList,
  audit: LoadedAuditKeys,
  createGraceMs: number,
  developmentJwksUrl?: string,
): Promise<Gateway> {
  const baseUrl = config.upstreamBaseUrl;
  if (!baseUrl) throw new Error('the gateway needs an upstream base URL');
  // Read before the port is bound: a manifest that cannot be used stops startup with nothing to close.
  const trustedOperations = config.trustedDocuments && loadManifest(config.trustedDocuments.path);
  const metrics = new GatewayMetrics();
  const opened = new Opened();
  return opened.starting(async () => {
    const storage = await openStorage(config, logger, metrics, audit.keys[0]);
    opened.add(() => storage.close());

    const listening = await listen(config);
    opened.add(() => listening.close());
    const publicUrl = config.publicUrl ?? `http://localhost:${listening.port}`;
    const callbackUrl = (merchantId: string) => `${publicUrl}/callbacks/${merchants.byId(merchantId)?.callbackToken}`;

    const checkpointer = await startCheckpointer(
      config,
      merchants,
      storage,
      audit,
      logger,
      metrics,
      developmentJwksUrl,
    );
    opened.add(() => checkpointer.stop());

    const upstream = connectProvider({
      config,
      baseUrl,
      budget: storage.budget,
      metrics,
      logger,
      secrets,
      callbackUrl,
    });
    opened.add(() => upstream.close());

    const service = buildService({
      config,
      storage,
      auditKeys: audit.keys,
      provider: upstream.provider,
      metrics,
      logger,
      // Relays start just below; nothing becomes final before then. The job itself was queued with the
      // final write (relay.job.ts); this only wakes the worker to send it now.
      onFinal: (record) => relays.worker.wakeFor(record),
    });

    // After a rotation of the audit key, before anything is sent: what waits is sealed under the key in use.
    const moved = await service.resealUnsent();
    if (moved.resealed > 0 || moved.elsewhere > 0)
      logger[moved.elsewhere > 0 ? 'warn' : 'info'](
        moved,
        `payouts still to send re-sealed under audit key ${audit.keys[0].keyId}` +
          (moved.elsewhere > 0
            ? '; some were sealed under a key this gateway does not hold: held for an operator'
            : ''),
      );

    const loop = new WorkLoop();
    opened.add(() => loop.stop());

    const relays = startRelays({ config, queue: storage.relayQueue, service, logger, loop });
    opened.add(() => relays.close());

    const server = await serve(listening, {
      config,
      logger,
      merchants,
      metrics,
      storage,
      service,
      secrets,
      developmentJwksUrl,
      trustedOperations,
      auditWitness: () => checkpointer.witnessState(),
    });
    // Creates still running after the grace are answered OUTCOME_UNKNOWN, so the HTTP drain can finish.
    opened.add(() => Promise.all([service.drain(createGraceMs), server.close()]));

    const checks = startStatusChecks({ config, store: storage.store, service, merchants, metrics, logger, loop });
    opened.add(() => checks.close());

    return {
      url: `http://127.0.0.1:${listening.port}`,
      port: listening.port,
      service,
      dueLoop: checks.dueLoop,
      merchants,
      logger,
      secrets,
      metricsUrl: server.metricsPort === undefined ? undefined : `http://127.0.0.1:${server.metricsPort}`,
      callbackUrl,
      reloadMerchants: merchantsReloader({ config, merchants, secrets, service, logger }),
      storeCalls: () => storage.store.databaseCalls,
      async close() {
        server.stopAccepting();
        await opened.close();
      },
    };
  });
}
