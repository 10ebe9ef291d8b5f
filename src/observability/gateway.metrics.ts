import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { OperationLabels } from './operation.labels';

/** The gateway's Prometheus metrics, on a registry of its own (several gateways may share a process in tests). */
export class GatewayMetrics {
  readonly registry = new Registry();

  /** The `operation` label of `operations`: see OperationLabels. */
  readonly operationLabels = new OperationLabels();

  readonly operations = new Counter({
    name: 'gateway_graphql_operations_total',
    help: 'GraphQL operations by name (the examples, the first 50 other names, then "other"), type and outcome',
    labelNames: ['operation', 'type', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly providerLatency = new Histogram({
    name: 'gateway_provider_request_duration_seconds',
    help: 'Provider call latency by endpoint and HTTP status (or the transport failure)',
    labelNames: ['endpoint', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly providerBudgetSpent = new Counter({
    name: 'gateway_provider_budget_spent_total',
    help: "Provider calls let through the merchant's provider budget, by merchant and purpose (create, refresh, reconcile, callback, unknown-reference, balance)",
    labelNames: ['merchant', 'purpose'] as const,
    registers: [this.registry],
  });

  readonly providerBudgetRefused = new Counter({
    name: 'gateway_provider_budget_refused_total',
    help: 'Provider calls held back (never sent), by merchant, purpose and reason (budget, paused after a 429, recently_checked)',
    labelNames: ['merchant', 'purpose', 'reason'] as const,
    registers: [this.registry],
  });

  readonly callbacks = new Counter({
    name: 'gateway_callbacks_total',
    help: 'Provider callbacks by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly callbackSecrets = new Counter({
    name: 'gateway_callback_secrets_total',
    help: 'Signed callbacks verified, by merchant and the position (from 1) in its secrets of the one that verified: when the old secret of a rotation stays at zero, it can be removed',
    labelNames: ['merchant', 'secret'] as const,
    registers: [this.registry],
  });

  readonly callbackMismatches = new Counter({
    name: 'gateway_callback_mismatches_total',
    help: "Callbacks whose final status the provider's own answer to check-status contradicted (the provider's answer was applied)",
    registers: [this.registry],
  });

  readonly finalPayouts = new Counter({
    name: 'gateway_payouts_final_total',
    help: 'Payouts that reached a final status, by status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly payoutControls = new Counter({
    name: 'gateway_payout_control_actions_total',
    help: 'Payout control actions: held for approval, scheduled for a sendAt, approved, rejected, cancelled, expired, refused (with the limit that refused), sealed_elsewhere (held: sealed under a key this gateway does not seal with)',
    labelNames: ['action', 'limit'] as const,
    registers: [this.registry],
  });

  readonly websockets = new Gauge({
    name: 'gateway_websocket_connections',
    help: 'Open graphql-ws connections',
    registers: [this.registry],
  });

  readonly subscriptions = new Gauge({
    name: 'gateway_subscriptions_active',
    help: 'GraphQL subscriptions live on every transport: counted once they hear every change published on any replica',
    registers: [this.registry],
  });

  readonly storeErrors = new Counter({
    name: 'gateway_store_errors_total',
    help: 'Failed database calls: outage (PostgreSQL away, answered SERVICE_UNAVAILABLE) or fault (any other database error, answered INTERNAL_SERVER_ERROR)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly recheckBacklog = new Gauge({
    name: 'gateway_reconciler_backlog',
    help: 'Payouts due for a status check in the last rechecker round (counted up to one batch of 100)',
    registers: [this.registry],
  });

  readonly scheduledWaiting = new Gauge({
    name: 'gateway_scheduled_payouts',
    help: 'Payouts SCHEDULED, waiting for their sendAt (the merchants served; read from the database at each scrape)',
    registers: [this.registry],
  });

  readonly resendsWaiting = new Gauge({
    name: 'gateway_payouts_to_send_again',
    help: 'Approved or scheduled payouts whose send has an unknown outcome: the gateway sends each again itself once the provider confirms it never received it (RESEND_AFTER_SECONDS)',
    registers: [this.registry],
  });

  readonly dueUnserved = new Gauge({
    name: 'gateway_due_payouts_unserved',
    help: 'Payouts due now whose merchant this gateway does not serve (removed from MERCHANTS_FILE): left as they are, passed over by the due loop, and picked up again if the merchant returns',
    registers: [this.registry],
  });

  readonly scheduledOverdue = new Gauge({
    name: 'gateway_scheduled_overdue_seconds',
    help: 'How long past its sendAt the most overdue SCHEDULED payout of the merchants served is (0 when none is overdue); near SCHEDULE_LATE_LIMIT_SECONDS it is about to expire',
    registers: [this.registry],
  });

  readonly providerCircuitOpen = new Gauge({
    name: 'gateway_provider_circuit_open',
    help: "1 while a merchant's provider circuit is open (calls fail fast), else 0; by merchant id and endpoint",
    labelNames: ['merchant', 'endpoint'] as const,
    registers: [this.registry],
  });

  readonly auditCheckpointsLocalOnly = new Gauge({
    name: 'gateway_audit_checkpoints_local_only',
    help: 'Whether the signed audit checkpoints are kept only beside the database (1: no AUDIT_WITNESS_URL), where whoever can rewrite it can rewrite them',
    registers: [this.registry],
  });

  readonly auditWitnessPending = new Gauge({
    name: 'gateway_audit_witness_pending',
    help: 'Signed audit checkpoints the witness (AUDIT_WITNESS_URL) has not taken yet, at most one per merchant',
    registers: [this.registry],
  });

  readonly untrustedOperations = new Counter({
    name: 'gateway_untrusted_operations_total',
    help: 'Operations not in TRUSTED_DOCUMENTS, by code (PERSISTED_QUERY_NOT_IN_LIST, QUERY_NOT_IN_SAFELIST) and action (refused; allowed in log mode)',
    labelNames: ['code', 'action'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
