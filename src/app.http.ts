import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { WitnessState } from './audit/audit.witness';
import { ClientAuth } from './auth/client.auth';
import { JwtVerifier } from './auth/jwt.verifier';
import { MerchantRegistry } from './auth/merchant.registry';
import { CallbackReceiver } from './callbacks/callback.receiver';
import { Config } from './config';
import { CONSOLE_PATH, ConsoleRoute } from './console/console.route';
import { DisbursementService } from './disbursements/disbursement.service';
import { PayoutExports, PAYOUTS_CSV_PATH } from './exports/payouts.route';
import { TrustedOperation } from './graphql/operations/trusted-documents.manifest';
import { badRequest, internalError } from './graphql/request.errors';
import { HttpError } from './http/http.body';
import { limitConnectionsPerAddress } from './http/http.connections';
import { applyCors } from './http/http.cors';
import { answerWhileStarting } from './http/http.starting';
import { sendGraphQLError, sendJson } from './http/http.reply';
import { GatewayMetrics } from './observability/gateway.metrics';
import { repeatedLine } from './observability/log.throttle';
import { Logger } from './observability/pino.logger';
import { SecretList } from './observability/secret.redaction';
import { SecretScrubber } from './upstream/secret.scrubber';
import { GraphQLEndpoints, startGraphQL } from './app.graphql';
import { Health, startHealth } from './app.health';
import { Opened } from './app.opened';
import { Storage } from './app.storage';

export interface Listening {
  httpServer: Server;
  port: number;
  /** Stops answering 503 (http.starting.ts): serve() calls it once its routes take every request. */
  readonly serving: () => void;
  /** Closes the server if serving has not (GraphQL's drain closes it): a start-up that failed after binding. */
  close(): Promise<void>;
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
  const serving = answerWhileStarting(httpServer);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  return {
    httpServer,
    port: (httpServer.address() as AddressInfo).port,
    serving,
    async close() {
      if (!httpServer.listening) return;
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

export interface ServerParts {
  config: Config;
  logger: Logger;
  merchants: MerchantRegistry;
  metrics: GatewayMetrics;
  storage: Storage;
  service: DisbursementService;
  /** Every secret the gateway knows, scrubbed from what the callback receiver logs. */
  secrets: SecretList;
  /** The embedded sandbox's development key set, trusted when JWT_JWKS_URL is unset (open access stays on). */
  developmentJwksUrl?: string;
  /** TRUSTED_DOCUMENTS, read at startup (trusted-documents.manifest.ts). */
  trustedOperations?: readonly TrustedOperation[];
  /** Whether the audit checkpoints reach a witness (AUDIT_WITNESS_URL), for /readyz. */
  auditWitness: () => WitnessState;
}

export interface Serving {
  /** The port of the METRICS_PORT listener, when there is one. */
  metricsPort?: number;
  /** Report not ready from now on (shutdown has begun). */
  stopAccepting(): void;
  /** Cuts open exports, stops GraphQL over HTTP and websockets (draining requests in flight) and the HTTP server, then the metrics listener. */
  close(): Promise<void>;
}

/**
 * Serves on a bound server, in steps: health and metrics (first up, last down, so readiness is
 * reported through the drain), client credentials, GraphQL, CSV exports, the callback receiver,
 * the console web app, and the routes that send each request to one of them.
 */
export async function serve({ httpServer, serving }: Listening, parts: ServerParts): Promise<Serving> {
  const { config, logger, metrics, storage, service } = parts;
  const opened = new Opened();
  return opened.starting(async () => {
    const health = await startHealth({
      config,
      storage,
      metrics,
      logger,
      merchantIds: () => parts.merchants.ids(),
      auditWitness: parts.auditWitness,
    });
    opened.add(() => health.close());
    const auth = clientAuth(parts);
    const allowedOrigins = new Set(config.corsOrigins);
    const { rateLimit } = storage;
    const graphql = await startGraphQL({ ...parts, httpServer, auth, rateLimit, allowedOrigins });
    opened.add(() => graphql.stop());
    const exports = new PayoutExports({ auth, rateLimit, exporter: service, logger });
    // An export may run for minutes: cut it (its audit entry says so) rather than hold the drain.
    opened.add(() => exports.close());
    const callbacks = new CallbackReceiver({
      service,
      merchants: parts.merchants,
      webhookSecrets: config.webhookSecrets,
      logger,
      metrics,
      scrubber: new SecretScrubber(parts.secrets),
    });
    const consoleApp = new ConsoleRoute();
    route(httpServer, { config, logger, health, graphql, exports, callbacks, consoleApp, allowedOrigins });
    serving();
    return {
      metricsPort: health.metricsPort,
      stopAccepting: () => health.stopAccepting(),
      close: () => opened.close(),
    };
  });
}

/** Who a request may act as: JWTs (JWT_JWKS_URL, else the embedded sandbox's development keys), client tokens, open access. */
function clientAuth({ config, merchants, logger, developmentJwksUrl }: ServerParts): ClientAuth {
  const jwksUrl = config.jwt.jwksUrl ?? developmentJwksUrl;
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
  return new ClientAuth({ merchants, jwt, openAccess: merchants.openAccess && !config.jwt.jwksUrl, logger });
}

interface Routes {
  config: Pick<Config, 'metricsPort'>;
  logger: Logger;
  health: Health;
  graphql: GraphQLEndpoints;
  exports: PayoutExports;
  callbacks: CallbackReceiver;
  consoleApp: ConsoleRoute;
  allowedOrigins: ReadonlySet<string>;
}

/** Sends each request on the API's server to its part; a failure is answered, and logged at most five a minute. */
function route(httpServer: Server, routes: Routes): void {
  const { config, health, graphql, exports, callbacks, consoleApp, allowedOrigins } = routes;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    // With METRICS_PORT, /metrics is served only there: never with the API.
    if (await health.respond(res, url, config.metricsPort === undefined)) return;
    if (url.pathname === CONSOLE_PATH || url.pathname.startsWith(`${CONSOLE_PATH}/`))
      return consoleApp.handle(req, res, url.pathname);
    if (url.pathname.startsWith('/callbacks/'))
      return callbacks.handle(req, res, url.pathname.slice('/callbacks/'.length));
    if (url.pathname === '/graphql') {
      if (applyCors(req, res, allowedOrigins)) return;
      return graphql.graphql(req, res, url);
    }
    if (url.pathname === '/graphql/stream') {
      if (applyCors(req, res, allowedOrigins)) return;
      return graphql.stream(req, res);
    }
    if (url.pathname === PAYOUTS_CSV_PATH) {
      if (applyCors(req, res, allowedOrigins)) return;
      return exports.handle(req, res, url);
    }
    sendJson(res, 404, { error: 'Not found' });
  }

  // A database outage fails every callback (and any request that meets it unexpectedly): at most five lines a minute.
  const requestFailed = repeatedLine(routes.logger, 'error', 'request failed');
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
}
