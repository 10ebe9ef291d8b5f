import { ClientRateLimit } from '../auth/client.rate-limit';
import { Config } from '../config';
import { EntryKey } from '../disbursements/audit.entry';
import {
  AuditCheckpointStore,
  BeneficiaryStore,
  DisbursementEvents,
  DisbursementStore,
  RecordsReader,
} from '../disbursements/disbursement.ports';
import { ReconciliationStore } from '../disbursements/reconciliation.model';
import { GatewayMetrics } from '../observability/gateway.metrics';
import { Logger } from '../observability/pino.logger';
import { RelayQueue } from '../relay/relay.queue';
import { BudgetLedger } from '../upstream/provider.budget';

export interface Storage {
  /** The system of record; also what finance reads (the audit chain and its checkpoints, statements, exports). */
  store: DisbursementStore & RecordsReader & AuditCheckpointStore & BeneficiaryStore;
  runs: ReconciliationStore;
  events: DisbursementEvents;
  /** Client quotas: in memory for the one process of the embedded file, in PostgreSQL for replicas. */
  rateLimit: ClientRateLimit;
  /** Provider budgets (UPSTREAM_RATE_LIMIT_PER_MIN), in the database every replica shares. */
  budget: BudgetLedger;
  /** Relays to clients' own callbackUrl, in the same database. */
  relayQueue: RelayQueue;
  /** The latest moment the database went back in time (ms), if it ever did. */
  rewoundAt: () => number | undefined;
  /** Why the database was found at start to have gone back in time, when it was. */
  rewoundAtStart?: string;
  /** Why the database must not be written now, when it must not (the embedded file replaced under the gateway); /readyz says it. */
  problem?: () => string | undefined;
  close(): Promise<void>;
}

/** What every engine's storage is opened with. */
export interface StorageNeeds {
  config: Config;
  logger: Logger;
  metrics: GatewayMetrics;
  /** The audit key in use: its chain key and id key every entry appended. */
  entryKey: EntryKey;
}

/** The store's retention settings, in the milliseconds every store takes. */
export function retentionOf(config: Config): { retentionMs: number; eventRetentionMs: number } {
  return { retentionMs: config.retentionSeconds * 1000, eventRetentionMs: config.eventRetentionSeconds * 1000 };
}
