import { startSandbox } from '../src/sandbox/sandbox.server';
import { failStart, serveParent } from './child.ipc';

/** Longest delay setTimeout honours (2^31-1 ms); beyond it Node fires at once, which would settle every payout. */
const NEVER_MS = 2_147_483_647;

/**
 * Far more than every run together spends (150.75 a payout): the default wallet (1,000,000) holds 6,633 payouts,
 * and the sandbox creates every payout past it Failed, which no callback turns SUCCESSFUL.
 */
const BOTTOMLESS_WALLET = 1_000_000_000_000;

/** The provider stub in its own process: no callbacks during the run, no rate limit, unsigned, a wallet that never runs dry. */
async function main(): Promise<void> {
  const sandbox = await startSandbox({
    port: 0,
    settleMs: NEVER_MS,
    rateLimitPerMin: 0,
    openingBalance: BOTTOMLESS_WALLET,
  });
  serveParent(sandbox.url, '', () => sandbox.close());
}

main().catch(failStart);
