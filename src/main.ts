import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { DEV_KEY_FILE, loadOrCreateDevKey } from './auth/jwt.dev-key';
import { MerchantRegistry } from './auth/merchant.registry';
import { Config, ConfigError, loadConfig } from './config';
import { createLogger } from './observability/logger';
import { startSandbox } from './sandbox/sandbox.server';
import { startGateway } from './server';

/** Longer than the HTTP drain grace (10 s), so a clean drain always finishes first. */
const SHUTDOWN_DEADLINE_MS = 15_000;

/** `npm start`: the gateway, and the embedded sandbox in front of it when no provider is configured. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const embedded = !config.upstreamBaseUrl;
  const webhookSecret = embedded
    ? (config.webhookSecret ?? config.sandbox.webhookSecret ?? `whsec_${randomBytes(24).toString('base64')}`)
    : config.webhookSecret;
  let merchants: MerchantRegistry;
  try {
    merchants = MerchantRegistry.fromConfig(config, embedded);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, secrets: merchants.secrets() });

  // The embedded sandbox doubles as a development identity provider: `npm run token` signs with this key.
  const devKey = embedded ? await loadOrCreateDevKey() : undefined;
  const sandbox = embedded
    ? await startSandbox({ ...config.sandbox, webhookSecret, logger, jwks: devKey && { keys: [devKey.publicJwk] } })
    : undefined;
  const gateway = await startGateway({
    config: { ...config, upstreamBaseUrl: sandbox?.url ?? config.upstreamBaseUrl, webhookSecret },
    logger,
    merchants,
    developmentJwksUrl: sandbox && `${sandbox.url}/.well-known/jwks.json`,
  });
  if (sandbox) {
    logger.info(`embedded sandbox provider at ${sandbox.url}`);
    if (!config.jwt.jwksUrl) logger.info(`development JWTs accepted: mint one with npm run token (key in ${DEV_KEY_FILE})`);
  }
  const shown = config.host === '0.0.0.0' ? 'localhost' : config.host;
  logger.info(`ready: GraphQL and Apollo Sandbox at http://${shown}:${gateway.port}/graphql`);

  let stopping = false;
  /**
   * Stop accepting, report not ready, let in-flight mutations and callbacks finish (up to the drain
   * grace period), close websockets with 1001, flush logs, exit 0; a hard deadline bounds it all.
   */
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    await gateway.close();
    await sandbox?.close();
    logger.info('stopped');
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
