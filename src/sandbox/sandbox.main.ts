import '../node.supported';
import { pino } from 'pino';
import { loadOrCreateDevKey } from '../auth/jwt.dev-key';
import { ConfigError, loadConfig } from '../config';
import { startSandbox } from './sandbox.server';

/** `npm run sandbox`: the provider simulator alone, configured by the SANDBOX_* settings. */
async function main(): Promise<void> {
  const config = loadConfig();
  const { publicJwk } = await loadOrCreateDevKey();
  const sandbox = await startSandbox({
    ...config.sandbox,
    jwks: { keys: [publicJwk] },
    logger: pino({ level: config.logLevel }),
  });
  console.log(`Sandbox listening at ${sandbox.url}`);
  const stop = (): void => {
    // Closing leaves no timer running, so the process ends by itself.
    void sandbox.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  // A bad setting is one clear line; anything else keeps its stack.
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
});
