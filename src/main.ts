import './node.supported';
// First: a SIGHUP from here on waits for the gateway instead of ending the process.
import { reloadSignal } from './reload.signal';
import 'reflect-metadata';
import type { App } from './app';
import { Config, ConfigError, loadConfig } from './config';
import { startTracing } from './observability/tracing.start';

/** Longer than the HTTP drain grace (10 s), so a clean drain always finishes first. */
const SHUTDOWN_DEADLINE_MS = 15_000;

/** `npm start`: the gateway, and the embedded sandbox in front of it when no provider is configured. */
async function main(): Promise<void> {
  let config: Config;
  let app: App;
  try {
    config = loadConfig();
    // Before the gateway's modules load, so the SDK can hook pg; nothing is loaded when tracing is off.
    const tracing = await startTracing(config.tracing);
    const { startApp } = await import('./app.js');
    app = await startApp({ config, tracing });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const { gateway } = app;
  const { logger } = gateway;
  const shown = config.host === '0.0.0.0' ? 'localhost' : config.host;
  logger.info(`ready: GraphQL and Apollo Sandbox at http://${shown}:${gateway.port}/graphql`);
  logger.info(`the console at http://${shown}:${gateway.port}/console`);
  if (gateway.metricsUrl)
    logger.info(
      `metrics and health on their own listener at ${gateway.metricsUrl.replace('127.0.0.1', shown)}/metrics`,
    );

  let stopping = false;
  /**
   * Stop accepting, report not ready, let in-flight mutations and callbacks finish (creates still
   * running after their grace are answered OUTCOME_UNKNOWN), close websockets with 1001, flush logs,
   * exit 0; a hard deadline bounds it all.
   */
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    await app.close();
    logger.info('stopped');
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(0);
  };
  // The operator's reload: MERCHANTS_FILE and its secrets, applied whole or not at all, without a restart.
  const waited = reloadSignal.ready(() => {
    if (!stopping) void gateway.reloadMerchants();
  });
  if (waited) logger.info('SIGHUP came while the gateway started: MERCHANTS_FILE is read again now that it is ready');
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
