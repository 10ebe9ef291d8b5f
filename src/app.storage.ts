import { Config } from './config';
import { EntryKey } from './disbursements/audit.entry';
import { GatewayMetrics } from './observability/gateway.metrics';
import { Logger } from './observability/pino.logger';
import { Storage } from './storage/storage.port';
import { openStorage } from './storage/storage.registry';

export type { Storage } from './storage/storage.port';

/**
 * The system of record from DATABASE_URL, on the engine its scheme names (storage.registry.ts). Opening
 * migrates the schema; it throws when the database cannot be opened (unreachable, in use, a schema too new).
 */
export function createStorage(
  config: Config,
  logger: Logger,
  metrics: GatewayMetrics,
  entryKey: EntryKey,
): Promise<Storage> {
  return openStorage(config.database, { config, logger, metrics, entryKey });
}
