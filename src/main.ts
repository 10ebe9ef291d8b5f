import 'reflect-metadata';
import { App, startApp } from './app';
import { Config, ConfigError, loadConfig } from './config';

/** Longer than the HTTP drain grace (10 s), so a clean drain always finishes first. */
const SHUTDOWN_DEADLINE_MS = 15_000;

/** `npm start`: the gateway, and the embedded sandbox in front of it when no provider is configured. */
async function main(): Promise<void> {
  let config: Config;
  let app: App;
  try {
    config = loadConfig();
    app = await startApp({ config });
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
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
