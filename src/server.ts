import { GraphQLServing } from './graphql/gateway.context';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ClientAuth } from './auth/client.auth';
import { JwtVerifier } from './auth/jwt.verifier';
import { MerchantRegistry } from './auth/merchant.registry';
import { CallbackReceiver } from './callbacks/callback.receiver';
import { Config } from './config';
import { handleDemo } from './demo/demo.route';
import { badRequest, internalError } from './graphql/request.errors';
import { Reconciler } from './disbursements/disbursement.reconciler';
import { DisbursementService } from './disbursements/disbursement.service';
import { buildGatewaySchema } from './graphql/schema/gateway.schema';
import { GraphQLHttpHandler } from './graphql/transports/http.transport';
import { attachGraphQLWs } from './graphql/transports/ws.transport';
import { acceptsMultipartSubscription, serveMultipart } from './graphql/transports/multipart.transport';
import { GraphQLOperations } from './graphql/operations/operation.runner';
import { createSseHandler } from './graphql/transports/sse.transport';
import { TrustedDocuments } from './graphql/operations/trusted-documents.gate';
import { TrustedOperation } from './graphql/operations/trusted-documents.manifest';
import { PayoutExports, PAYOUTS_CSV_PATH } from './exports/payouts.route';
import { HttpError } from './http/http.body';
import { applyCors } from './http/http.cors';
import { limitConnectionsPerAddress } from './http/http.connections';
import { sendGraphQLError, sendJson } from './http/http.reply';
import { repeatedLine } from './observability/log.throttle';
import { Logger } from './observability/pino.logger';
import { GatewayMetrics } from './observability/gateway.metrics';
import { Storage } from './app.storage';

export interface ServerParts {
  config: Config;
  logger: Logger;
  merchants: MerchantRegistry;
  metrics: GatewayMetrics;
  storage: Storage;
  /** The embedded sandbox's development key set, trusted when JWT_JWKS_URL is unset (open access stays on). */
  developmentJwksUrl?: string;
  service: DisbursementService;
  reconciler: Reconciler;
  callbacks: CallbackReceiver;
  /** TRUSTED_DOCUMENTS, read at startup (trusted-documents.manifest.ts). */
  trustedOperations?: readonly TrustedOperation[];
}

export interface Listening {
  httpServer: Server;
  port: number;
}

/** Binds the gateway's one HTTP server; its port is known before anything else is built (callback URLs need it). */
export async function listen(config: Pick<Config, 'port' | 'host' | 'http'>): Promise<Listening> {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnectionsPerIp } = config.http;
  const httpServer: Server = createServer({
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    // Above a load balancer's usual 60 s idle timeout, so it never reuses a connection being closed here.
    keepAliveTimeout: keepAliveTimeoutMs,
    // How often Node looks for connections past those timeouts (its default, 30 s, would let them overstay).
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
  });
  limitConnectionsPerAddress(httpServer, maxConnectionsPerIp);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  return { httpServer, port: (httpServer.address() as AddressInfo).port };
}

export interface Serving {
  /** The port of the METRICS_PORT listener, when there is one. */
  metricsPort?: number;
  /** Report not ready from now on (shutdown has begun). */
  stopAccepting(): void;
  /** Cuts open exports, stops GraphQL over HTTP and websockets (draining requests in flight) and the HTTP server. */
  close(): Promise<void>;
}

/** Serves on a bound server: GraphQL over HTTP and graphql-ws on /graphql, CSV exports, the callback receiver, health, metrics, demo. */
export async function serve({ httpServer }: Listening, parts: ServerParts): Promise<Serving> {
  const { config, logger, merchants, metrics, storage, service, reconciler, callbacks } = parts;
  const { store, events, rateLimit } = storage;
  const schema = buildGatewaySchema({
    allowPrivateNetworks: config.relay.allowPrivateNetworks,
    scheduleMaxAheadDays: config.schedule.maxAheadDays,
  });
  const jwksUrl = config.jwt.jwksUrl ?? parts.developmentJwksUrl;
  const jwt = jwksUrl
    ? JwtVerifier.remote({
        ...config.jwt,
        jwksUrl,
        cooldownMs: config.jwt.jwksCooldownMs,
        maxStaleMs: config.jwt.jwksMaxStaleMs,
        onFetch: (ok, reason) => {
          if (!ok) logger.warn({ reason }, 'JWT key set fetch failed; the last good set serves while it lasts');
        },
      })
    : undefined;
  const auth = new ClientAuth({ merchants, jwt, openAccess: merchants.openAccess && !config.jwt.jwksUrl, logger });
  const allowedOrigins = new Set(config.corsOrigins);
  const trustedDocuments =
    parts.trustedOperations &&
    new TrustedDocuments(parts.trustedOperations, {
      mode: config.trustedDocuments?.mode ?? 'enforce',
      introspection: config.introspection,
      logger,
      metrics,
    });
  if (trustedDocuments) metrics.operationLabels.useOnly(trustedDocuments.names);
  // One set of dependencies for both transports, so HTTP and websockets cannot drift apart.
  const serving: GraphQLServing = {
    schema,
    service,
    auth,
    rateLimit,
    logger,
    metrics,
    introspection: config.introspection,
    trustedDocuments,
  };
  // One core of rules for graphql-ws, multipart HTTP and server-sent events; Apollo serves plain HTTP with the same rules.
  const operations = new GraphQLOperations(serving, config.http.maxSubscriptionsPerClient);
  const ws = attachGraphQLWs(httpServer, operations, { allowedOrigins });
  const sse = createSseHandler(operations);
  const graphql = new GraphQLHttpHandler({
    ...serving,
    landingPage: config.landingPage,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }),
      {
        serverWillStart: async () => ({
          drainServer: async () => {
            operations.endAll();
            await ws.dispose();
          },
        }),
      },
    ],
  });
  await graphql.start();
  const exports = new PayoutExports({ auth, rateLimit, exporter: service, logger });
  let shuttingDown = false;

  /**
   * Whether this replica can serve: not stopping, its store and pub/sub answer. A provider circuit
   * is not this replica's state (every replica shares the provider, and reads and callbacks work
   * without it): taking the replica out of a balancer would only lose its callback receiver.
   */
  async function readiness(): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
    const [storeOk, pubsubOk] = await Promise.all([store.healthy(), events.healthy()]);
    const checks = { notShuttingDown: !shuttingDown, store: storeOk, pubsub: pubsubOk };
    return { ready: Object.values(checks).every(Boolean), checks };
  }

  /** Health and metrics; true when `url` was one of them. /metrics only where `withMetrics`. */
  async function healthAndMetrics(res: ServerResponse, url: URL, withMetrics: boolean): Promise<boolean> {
    if (url.pathname === '/healthz') {
      sendJson(res, 200, { status: 'ok' });
      return true;
    }
    if (url.pathname === '/readyz') {
      const state = await readiness();
      sendJson(res, state.ready ? 200 : 503, state);
      return true;
    }
    if (url.pathname === '/metrics' && withMetrics) {
      metrics.reconcilerBacklog.set(reconciler.backlog);
      // The database away (an outage): the scheduled gauges keep their last values, the rest is served.
      const scheduled = await store.scheduledWaiting().catch(() => undefined);
      if (scheduled) {
        metrics.scheduledWaiting.set(scheduled.count);
        const overdueMs = scheduled.earliestDueAt === undefined ? 0 : Date.now() - scheduled.earliestDueAt;
        metrics.scheduledOverdue.set(Math.max(0, overdueMs) / 1000);
      }
      const text = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
      return true;
    }
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    // With METRICS_PORT, /metrics is served only there: never with the API.
    if (await healthAndMetrics(res, url, config.metricsPort === undefined)) return;
    if (url.pathname === '/demo' || url.pathname.startsWith('/demo/')) return handleDemo(req, res);
    if (url.pathname.startsWith('/callbacks/'))
      return callbacks.handle(req, res, url.pathname.slice('/callbacks/'.length));
    if (url.pathname === '/graphql') {
      if (applyCors(req, res, allowedOrigins)) return;
      if (acceptsMultipartSubscription(req)) return serveMultipart(operations, req, res);
      return graphql.handle(req, res, url);
    }
    if (url.pathname === '/graphql/stream') {
      if (applyCors(req, res, allowedOrigins)) return;
      return sse(req, res);
    }
    if (url.pathname === PAYOUTS_CSV_PATH) {
      if (applyCors(req, res, allowedOrigins)) return;
      return exports.handle(req, res, url);
    }
    sendJson(res, 404, { error: 'Not found' });
  }

  // A database outage fails every callback (and any request that meets it unexpectedly): at most five lines a minute.
  const requestFailed = repeatedLine(logger, 'error', 'request failed');
  const metricsFailed = repeatedLine(logger, 'error', 'metrics request failed');
  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (!res.headersSent) sendGraphQLError(res, error.status, badRequest(error.message));
        return;
      }
      requestFailed({ err: error });
      if (!res.headersSent) sendGraphQLError(res, 500, internalError());
      else res.destroy();
    });
  });

  const metricsServer = config.metricsPort === undefined ? undefined : createServer();
  metricsServer?.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    healthAndMetrics(res, url, true)
      .then((served) => {
        if (!served) sendJson(res, 404, { error: 'Not found' });
      })
      .catch((error: unknown) => {
        metricsFailed({ err: error });
        if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error' });
      });
  });
  if (metricsServer) {
    await new Promise<void>((resolve, reject) => {
      metricsServer.once('error', reject);
      metricsServer.listen(config.metricsPort, config.host, () => resolve());
    });
  }

  return {
    metricsPort: metricsServer && (metricsServer.address() as AddressInfo).port,
    stopAccepting() {
      shuttingDown = true;
    },
    close: async () => {
      // An export may run for minutes: cut it (its audit entry says so) rather than hold the drain.
      await exports.close();
      await graphql.stop();
      if (metricsServer) {
        await new Promise<void>((resolve) => {
          metricsServer.close(() => resolve());
          metricsServer.closeAllConnections();
        });
      }
    },
  };
}
