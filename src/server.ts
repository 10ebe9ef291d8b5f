import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { MerchantRegistry } from './auth/merchant.registry';
import { CallbackReceiver } from './callbacks/callback.receiver';
import { Config } from './config';
import { handleDemo } from './demo/demo.route';
import { Reconciler } from './disbursements/disbursement.reconciler';
import { DisbursementService } from './disbursements/disbursement.service';
import { WalletBalances } from './disbursements/wallet.balance';
import { DisbursementBatches } from './disbursements/disbursement.batch';
import { DisbursementHistory } from './disbursements/disbursement.history';
import { buildGatewaySchema } from './graphql/gateway.schema';
import { GraphQLHttpHandler } from './graphql/graphql.http';
import { attachGraphQLWs } from './graphql/graphql.ws';
import { HttpError } from './http/http.body';
import { applyCors } from './http/http.cors';
import { sendGraphQLError, sendJson } from './http/http.reply';
import { Logger } from './observability/logger';
import { GatewayMetrics } from './observability/metrics';
import { RelaySender } from './relay/relay.sender';
import { createStorage } from './store/store.factory';
import { BreakingProvider } from './upstream/upstream.breaker';
import { UpstreamClient } from './upstream/upstream.client';

export interface GatewayOptions {
  config: Config;
  logger: Logger;
  merchants: MerchantRegistry;
}

export interface Gateway {
  url: string;
  port: number;
  service: DisbursementService;
  reconciler: Reconciler;
  /** The callback address the provider is given for a merchant. */
  callbackUrl(merchantId: string): string;
  /** Store round trips so far (batching shows here). */
  storeReads(): number;
  close(): Promise<void>;
}

/** Starts the gateway: GraphQL over HTTP and graphql-ws on /graphql, the callback receiver, health. */
export async function startGateway({ config, logger, merchants }: GatewayOptions): Promise<Gateway> {
  if (!config.upstreamBaseUrl) throw new Error('startGateway needs an upstream base URL');
  const httpServer: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
  const callbackUrl = (merchantId: string) => `${publicUrl}/callbacks/${merchants.byId(merchantId)?.callbackToken}`;

  const metrics = new GatewayMetrics();
  const upstream = new UpstreamClient({
    baseUrl: config.upstreamBaseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    callbackUrl: (merchant) => callbackUrl(merchant.id),
    logger,
    observe: (endpoint, status, seconds) => metrics.providerLatency.observe({ endpoint, status }, seconds),
  });
  const storage = createStorage(config, logger);
  const { store, events, rateLimit } = storage;
  const provider = new BreakingProvider(upstream, {
    resetTimeoutMs: config.breakerResetMs,
    onStateChange: (endpoint, state) => logger.warn({ endpoint, state }, 'provider circuit changed'),
  });
  const relay = new RelaySender({
    store,
    logger,
    secret: config.relay.secret,
    maxAttempts: config.relay.maxAttempts,
    retryBaseMs: config.relay.retryBaseMs,
  });
  const service = new DisbursementService({
    store,
    events,
    provider,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    reconcile: {
      unknownAfterMs: config.reconcile.unknownAfterMs,
      pendingAfterMs: config.reconcile.pendingAfterMs,
      maxDelayMs: 10 * 60_000,
    },
    onFinal: (record) => {
      metrics.finalPayouts.inc({ status: record.status });
      relay.enqueue(record);
    },
  });
  const reconciler = new Reconciler({
    service,
    store,
    merchantById: (id) => merchants.byId(id),
    intervalMs: config.reconcile.intervalMs,
    onError: (error) => logger.error({ err: error }, 'reconciler round failed'),
  });
  const callbacks = new CallbackReceiver({ service, merchants, webhookSecret: config.webhookSecret, logger, metrics });

  const schema = buildGatewaySchema(events.pubSub);
  const wallet = new WalletBalances({ provider, ttlMs: config.walletBalanceCacheMs });
  const batches = new DisbursementBatches({
    create: (merchant, request, requestId) => service.create(merchant, request, requestId),
    getMany: (merchant, referenceIds) => service.getMany(merchant, referenceIds),
  });
  const history = new DisbursementHistory(store);
  const ws = attachGraphQLWs(httpServer, { schema, service, wallet, batches, history, merchants, rateLimit, logger, metrics });
  const graphql = new GraphQLHttpHandler({
    schema,
    service,
    wallet,
    batches,
    history,
    merchants,
    rateLimit,
    logger,
    metrics,
    introspection: config.introspection,
    landingPage: config.landingPage,
    plugins: [ApolloServerPluginDrainHttpServer({ httpServer }), { serverWillStart: async () => ({ drainServer: () => ws.dispose() }) }],
  });
  await graphql.start();
  reconciler.start();
  const allowedOrigins = new Set(config.corsOrigins);
  let shuttingDown = false;

  /** Ready: not stopping, store and pub/sub answer, and the provider is not known to be failing. */
  async function readiness(): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
    const [storeOk, pubsubOk] = await Promise.all([store.healthy(), events.healthy()]);
    const checks = { notShuttingDown: !shuttingDown, store: storeOk, pubsub: pubsubOk, provider: !provider.open };
    return { ready: Object.values(checks).every(Boolean), checks };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/readyz') {
      const state = await readiness();
      return sendJson(res, state.ready ? 200 : 503, state);
    }
    if (url.pathname === '/metrics') {
      metrics.reconcilerBacklog.set(reconciler.backlog);
      const text = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
      return;
    }
    if (url.pathname === '/demo' || url.pathname.startsWith('/demo/')) return handleDemo(req, res);
    if (url.pathname.startsWith('/callbacks/')) return callbacks.handle(req, res, url.pathname.slice('/callbacks/'.length));
    if (url.pathname === '/graphql') {
      if (applyCors(req, res, allowedOrigins)) return;
      return graphql.handle(req, res, url);
    }
    sendJson(res, 404, { error: 'Not found' });
  }

  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (!res.headersSent) sendGraphQLError(res, error.status, 'BAD_REQUEST', error.message);
        return;
      }
      logger.error({ err: error }, 'request failed');
      if (!res.headersSent) sendGraphQLError(res, 500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
      else res.destroy();
    });
  });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    service,
    reconciler,
    callbackUrl,
    storeReads: () => store.reads,
    async close() {
      shuttingDown = true;
      await reconciler.stop();
      await graphql.stop();
      await relay.close();
      provider.shutdown();
      await upstream.close();
      await storage.close();
    },
  };
}
