import { Config } from './config';
import { AuditKeyRing } from './disbursements/audit.keys';
import { Disbursement } from './disbursements/disbursement.model';
import { ProviderPort } from './disbursements/disbursement.ports';
import { DisbursementService } from './disbursements/disbursement.service';
import { clientText } from './observability/client-text.limit';
import { GatewayMetrics } from './observability/gateway.metrics';
import { Logger } from './observability/pino.logger';
import { currentTraceparent } from './observability/tracing.spans';
import { Storage } from './app.storage';

export interface DomainParts {
  config: Config;
  storage: Storage;
  auditKeys: AuditKeyRing;
  provider: ProviderPort;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Called once when a payout reaches a final status, after its metric is counted. */
  onFinal: (record: Disbursement) => void;
}

/** The domain on its ports: every money rule, with its settings, metrics and log lines. */
export function buildService(parts: DomainParts): DisbursementService {
  const { config, storage, metrics, logger } = parts;
  const { store } = storage;
  return new DisbursementService({
    store,
    records: store,
    book: store,
    auditKeys: parts.auditKeys,
    runs: storage.runs,
    events: storage.events,
    provider: parts.provider,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    resendAfterMs: config.resendAfterMs,
    rewoundAt: () => storage.rewoundAt(),
    walletBalanceCacheMs: config.walletBalanceCacheMs,
    recheck: {
      unknownAfterMs: config.recheck.unknownAfterMs,
      pendingAfterMs: config.recheck.pendingAfterMs,
      maxDelayMs: 10 * 60_000,
    },
    onFinal: (record) => {
      metrics.finalPayouts.inc({ status: record.status });
      parts.onFinal(record);
    },
    payoutDayTimeZone: config.payoutDayTimeZone,
    scheduleLateLimitMs: config.schedule.lateLimitMs,
    scheduleMaxAheadMs: config.schedule.maxAheadDays * 86_400_000,
    onControl: (event) => {
      metrics.payoutControls.inc({ action: event.action, ...(event.limit && { limit: event.limit }) });
      logger.info(
        {
          merchant: event.merchantId,
          referenceId: event.referenceId,
          // A JWT's subject, as long as the identity provider made it.
          actor: clientText(event.actor) ?? null,
          action: event.action,
          limit: event.limit,
        },
        'payout control',
      );
    },
    traceparent: currentTraceparent,
    onMismatch: (mismatch) => {
      metrics.callbackMismatches.inc();
      logger.warn(mismatch, 'callback contradicted by the provider; its answer applied');
    },
  });
}
