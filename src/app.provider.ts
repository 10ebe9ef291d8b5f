import { Config } from './config';
import { ProviderPort } from './disbursements/disbursement.ports';
import { GatewayMetrics } from './observability/gateway.metrics';
import { Logger } from './observability/pino.logger';
import { SecretList } from './observability/secret.redaction';
import { BreakingProvider } from './upstream/upstream.breaker';
import { BudgetedProvider, BudgetLedger } from './upstream/provider.budget';
import { UpstreamClient } from './upstream/upstream.client';

export interface ProviderParts {
  config: Config;
  /** UPSTREAM_BASE_URL, or the embedded sandbox's address. */
  baseUrl: string;
  budget: BudgetLedger;
  metrics: GatewayMetrics;
  logger: Logger;
  secrets: SecretList;
  /** The callback address the provider is given for a merchant. */
  callbackUrl: (merchantId: string) => string;
}

export interface ProviderConnection {
  provider: ProviderPort;
  /** Ends the breaker's timers and the client's connections. */
  close(): Promise<void>;
}

/** The payment provider as the domain sees it: its client, behind a circuit breaker, behind the per-minute budget. */
export function connectProvider(parts: ProviderParts): ProviderConnection {
  const { config, metrics, logger } = parts;
  const upstream = new UpstreamClient({
    baseUrl: parts.baseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    callbackUrl: (merchant) => parts.callbackUrl(merchant.id),
    secrets: parts.secrets,
    logger,
    observe: (endpoint, status, seconds) => metrics.providerLatency.observe({ endpoint, status }, seconds),
  });
  const breaking = new BreakingProvider(upstream, {
    resetTimeoutMs: config.breakerResetMs,
    onStateChange: (merchantId, endpoint, state) => {
      logger.warn({ merchant: merchantId, endpoint, state }, 'provider circuit changed');
      metrics.providerCircuitOpen.set({ merchant: merchantId, endpoint }, state === 'open' ? 1 : 0);
    },
  });
  // Outside the breaker: what the budget holds back never reaches the provider, nor counts as its failure.
  const provider = new BudgetedProvider(breaking, {
    ledger: parts.budget,
    providerUrl: parts.baseUrl,
    perMinute: config.upstreamRateLimitPerMin,
    onSpend: (merchant, purpose) => metrics.providerBudgetSpent.inc({ merchant, purpose }),
    onRefuse: (merchant, purpose, reason) => metrics.providerBudgetRefused.inc({ merchant, purpose, reason }),
  });
  return {
    provider,
    async close() {
      breaking.shutdown();
      await upstream.close();
    },
  };
}
