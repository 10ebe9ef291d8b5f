import { MerchantRegistry } from './auth/merchant.registry';
import { Config, ConfigError } from './config';
import { DisbursementService } from './disbursements/disbursement.service';
import { describeChanges, MerchantChanges } from './disbursements/merchants.reload';
import { Logger } from './observability/pino.logger';
import { SecretList } from './observability/secret.redaction';

export interface ReloadParts {
  config: Config;
  merchants: MerchantRegistry;
  secrets: SecretList;
  service: DisbursementService;
  logger: Logger;
}

export type ReloadOutcome = { applied: true; changes: MerchantChanges } | { applied: false; reason: string };

/** Who the audit names for a reload: the operator who sent the signal. */
export const RELOAD_OPERATOR = 'operator (SIGHUP)';

/**
 * MERCHANTS_FILE read again (on SIGHUP) and applied whole or not at all. A file that does not parse
 * or fails validation changes nothing and is logged naming the problem. Otherwise, in this order:
 * its secrets join the redaction list (before any line could carry them), the audit entry is
 * written (no entry, no change), then the registry swaps in one step: a request that already found
 * its merchant finishes with that account, the next one finds the new. Reloads run one at a time.
 */
export function merchantsReloader(parts: ReloadParts): (operator?: string) => Promise<ReloadOutcome> {
  let running: Promise<unknown> = Promise.resolve();
  return (operator = RELOAD_OPERATOR) => {
    const next = running.then(() => reload(parts, operator));
    running = next.catch(() => undefined);
    return next;
  };
}

async function reload(parts: ReloadParts, operator: string): Promise<ReloadOutcome> {
  const { config, merchants, logger } = parts;
  const refuse = (reason: string): ReloadOutcome => {
    logger.error({ reason }, 'MERCHANTS_FILE not reloaded: the gateway goes on with the merchants it had');
    return { applied: false, reason };
  };
  if (!config.merchantsFile) return refuse('MERCHANTS_FILE is unset: the single merchant changes only with a restart');
  let next: MerchantRegistry;
  try {
    next = MerchantRegistry.fromConfig(config, false);
  } catch (error) {
    if (error instanceof ConfigError) return refuse(error.message);
    throw error;
  }
  parts.secrets.add(next.secrets());
  const changes = merchants.changesTo(next);
  try {
    await parts.service.recordMerchantsReload(changes, operator);
  } catch (error) {
    return refuse(`its audit entry could not be written (${error instanceof Error ? error.message : String(error)})`);
  }
  merchants.replaceWith(next);
  logger.info({ ...changes }, `MERCHANTS_FILE reloaded: ${describeChanges(changes) ?? 'nothing changed'}`);
  return { applied: true, changes };
}
