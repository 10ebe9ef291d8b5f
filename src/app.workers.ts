import { MerchantRegistry } from './auth/merchant.registry';
import { Config } from './config';
import { DueLoop } from './disbursements/disbursement.due-loop';
import { DisbursementStore } from './disbursements/disbursement.ports';
import { DisbursementService } from './disbursements/disbursement.service';
import { ReconciliationStepper } from './disbursements/reconciliation.stepper';
import { GatewayMetrics } from './observability/gateway.metrics';
import { repeatedLine } from './observability/log.throttle';
import { Logger } from './observability/pino.logger';
import { linksTo, ROOT_CONTEXT, SpanKind, traced } from './observability/tracing.spans';
import { RelayQueue } from './relay/relay.queue';
import { RelaySender } from './relay/relay.sender';
import { RelayWorker } from './relay/relay.worker';
import { LoopEntry, WorkLoop } from './app.loop';

export interface RelayParts {
  config: Config;
  queue: RelayQueue;
  service: DisbursementService;
  logger: Logger;
  loop: WorkLoop;
}

export interface Relays {
  /** `wake` runs a round early (the final write itself queued the relay). */
  worker: RelayWorker;
  /** Runs no more rounds, waits for the attempts in flight, closes the sender's connections. */
  close(): Promise<void>;
}

/** Relays to clients' own callbackUrl: the worker on the loop, its first round at once. */
export function startRelays(parts: RelayParts): Relays {
  const { relay } = parts.config;
  const sender = new RelaySender({
    secrets: relay.secrets,
    timeoutMs: relay.timeoutMs,
    allowPrivateNetworks: relay.allowPrivateNetworks,
  });
  const worker = new RelayWorker({
    queue: parts.queue,
    sender,
    noteAttempt: (merchantId, referenceId, attempt) => parts.service.noteRelayAttempt(merchantId, referenceId, attempt),
    logger: parts.logger,
    maxAttempts: relay.maxAttempts,
    retryBaseMs: relay.retryBaseMs,
    pollMs: relay.pollMs,
    leaseMs: 2 * relay.timeoutMs,
    // The worker's own place on the loop, set just below, before its first round can run.
    wake: (delayMs) => entry.wake(delayMs),
  });
  const entry = parts.loop.add(worker, 0);
  return {
    worker,
    async close() {
      await entry.stop();
      await worker.settle();
      await sender.close();
    },
  };
}

export interface StatusCheckParts {
  config: Config;
  store: DisbursementStore;
  service: DisbursementService;
  merchants: MerchantRegistry;
  metrics: GatewayMetrics;
  logger: Logger;
  loop: WorkLoop;
}

export interface StatusChecks {
  /** The due loop's place on the loop (a test pauses it). */
  dueLoop: LoopEntry;
  /** Runs no more rounds of either; each round under way ends first. */
  close(): Promise<void>;
}

/**
 * The due loop (status checks, approval expiries, scheduled sends) and the reconciliation stepper, each on the
 * loop every RECONCILE_INTERVAL_MS, their first rounds one interval after start.
 */
export function startStatusChecks(parts: StatusCheckParts): StatusChecks {
  const { config, service, merchants, logger, loop } = parts;
  const merchantById = (id: string) => merchants.byId(id);
  // Lines a database outage repeats on every round: each at most five a minute (docs/operations.md).
  const roundFailed = repeatedLine(logger, 'error', 'reconciler round failed');
  const stepFailed = repeatedLine(logger, 'error', 'reconciliation run step failed');
  const dueLoop = new DueLoop({
    service: {
      lease: (record, until) => service.lease(record, until),
      // A scheduled payout's send runs long after its create: a new trace, linked to the create's.
      runDue: (merchant, record) =>
        record.due?.kind === 'SEND'
          ? traced(
              'scheduled send',
              {
                kind: SpanKind.INTERNAL,
                parent: ROOT_CONTEXT,
                links: linksTo(record.traceparent),
                attributes: { 'merchant.id': merchant.id, 'payout.reference_id': record.referenceId },
              },
              () => service.runDue(merchant, record),
            )
          : service.runDue(merchant, record),
    },
    store: parts.store,
    merchantById,
    merchantIds: () => merchants.ids(),
    intervalMs: config.recheck.intervalMs,
    onError: (error) => roundFailed({ err: error }),
    onBacklog: (due) => parts.metrics.recheckBacklog.set(due),
  });
  const stepper = new ReconciliationStepper({
    ...service.reconciliation,
    merchantById,
    intervalMs: config.recheck.intervalMs,
    onError: (error) => stepFailed({ err: error }),
  });
  const checks = loop.add(dueLoop, config.recheck.intervalMs);
  const steps = loop.add(stepper, config.recheck.intervalMs);
  return {
    dueLoop: checks,
    async close() {
      await checks.stop();
      await steps.stop();
    },
  };
}
