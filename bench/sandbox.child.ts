import { startSandbox } from '../src/sandbox/sandbox.server';
import { failStart, serveParent } from './child.ipc';

/** Longest delay setTimeout honours (2^31-1 ms); beyond it Node fires at once, which would settle every payout. */
const NEVER_MS = 2_147_483_647;

/** The provider stub in its own process: no callbacks during the run, no rate limit, unsigned. */
async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, settleMs: NEVER_MS, rateLimitPerMin: 0 });
  serveParent(sandbox.url, '', () => sandbox.close());
}

main().catch(failStart);
