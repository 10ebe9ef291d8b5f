import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { MerchantRegistry } from './auth/merchant.registry';
import { CallbackReceiver } from './callbacks/callback.receiver';
import { Config } from './config';
import { Reconciler } from './disbursements/disbursement.reconciler';
import { DisbursementService } from './disbursements/disbursement.service';
import { createContext, GatewayContext } from './graphql/gateway.context';
import { formatError } from './graphql/gateway.errors';
import { buildGatewaySchema } from './graphql/gateway.schema';
import { HttpError, readBody } from './http/http.body';
import { applyCors } from './http/http.cors';
import { sendGraphQLError, sendJson } from './http/http.reply';
import { Logger } from './observability/logger';
import { createStorage } from './store/store.factory';
import { handleDemo } from './demo/demo.route';
import { RelaySender } from './relay/relay.sender';
import { BreakingProvider } from './upstream/upstream.breaker';
import { UpstreamClient } from './upstream/upstream.client';

const GRAPHQL_BODY_LIMIT = 64 * 1024;

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

function headerMap(req: IncomingMessage): HeaderMap {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

function unauthenticated(): GraphQLError {
  return new GraphQLError('Missing or invalid client credentials: send Authorization: Bearer <token>', {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
  });
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

  const callbackUrl = (merchantId: string) => `${publicUrl}/callbacks/${merchants.callbackTokenOf(merchantId)}`;
  const upstream = new UpstreamClient({
    baseUrl: config.upstreamBaseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    callbackUrl: (merchant) => callbackUrl(merchant.id),
  });
  const { store, events } = createStorage(config, logger);
  const provider = new BreakingProvider(upstream, {
    resetTimeoutMs: config.breakerResetMs,
    onStateChange: (endpoint, state) => logger.warn({ endpoint, state }, 'provider circuit changed'),
  });
  const relay = new RelaySender({ store, logger, secret: config.relay.secret, maxAttempts: config.relay.maxAttempts, retryBaseMs: config.relay.retryBaseMs });
  const service = new DisbursementService({
    store,
    events,
    provider,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    reconcile: { unknownAfterMs: config.reconcile.unknownAfterMs, pendingAfterMs: config.reconcile.pendingAfterMs, maxDelayMs: 10 * 60_000 },
    onFinal: (record) => relay.enqueue(record),
  });
  const reconciler = new Reconciler({
    service,
    store,
    merchantById: (id) => merchants.merchants.find((m) => m.id === id),
    intervalMs: config.reconcile.intervalMs,
    onError: (error) => logger.error({ err: error }, 'reconciler round failed'),
  });
  reconciler.start();
  const callbacks = new CallbackReceiver({ service, merchants, webhookSecret: config.webhookSecret, logger });

  const schema = buildGatewaySchema(events.pubSub);
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql', maxPayload: 64 * 1024 });
  const wsCleanup = useServer<Record<string, unknown>, { context?: GatewayContext }>(
    {
      schema,
      onConnect: (ctx) => {
        const authorization = ctx.connectionParams?.authorization;
        return merchants.authenticate(typeof authorization === 'string' ? authorization : undefined) !== undefined;
      },
      context: (ctx) => {
        const authorization = ctx.connectionParams?.authorization;
        const merchant = merchants.authenticate(typeof authorization === 'string' ? authorization : undefined);
        if (!merchant) throw unauthenticated();
        return createContext(service, merchant, randomUUID());
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e, logger)) } : undefined,
    },
    wsServer,
  );

  const apollo = new ApolloServer<GatewayContext>({
    schema,
    csrfPrevention: true,
    // main.ts owns signal handling and the order of shutdown.
    stopOnTerminationSignals: false,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    introspection: true,
    formatError: (formatted, error) => formatError(formatted, error, logger),
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }),
      { serverWillStart: async () => ({ drainServer: async () => { await wsCleanup.dispose(); } }) },
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
    ],
  });
  await apollo.start();
  const allowedOrigins = new Set(config.corsOrigins);

  async function handleGraphQL(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let body: unknown;
    if (req.method === 'POST') {
      const raw = (await readBody(req, GRAPHQL_BODY_LIMIT)).toString('utf8');
      const type = req.headers['content-type'] ?? '';
      if (type.startsWith('application/json') || type.startsWith('application/graphql-response+json')) {
        try {
          body = JSON.parse(raw);
        } catch {
          sendGraphQLError(res, 400, 'BAD_REQUEST', 'The request body is not valid JSON');
          return;
        }
      } else {
        body = raw;
      }
    }
    const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'].slice(0, 128) : randomUUID();
    const result = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method ?? 'GET', headers: headerMap(req), search: url.search, body },
      context: async () => {
        const merchant = merchants.authenticate(req.headers.authorization);
        if (!merchant) throw unauthenticated();
        return createContext(service, merchant, requestId);
      },
    });
    for (const [key, value] of result.headers) res.setHeader(key, value);
    res.statusCode = result.status ?? 200;
    if (result.body.kind === 'complete') {
      res.end(result.body.string);
      return;
    }
    for await (const chunk of result.body.asyncIterator) res.write(chunk);
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/demo' || url.pathname.startsWith('/demo/')) return handleDemo(req, res);
    if (url.pathname.startsWith('/callbacks/')) return callbacks.handle(req, res, url.pathname.slice('/callbacks/'.length));
    if (url.pathname === '/graphql') {
      if (applyCors(req, res, allowedOrigins)) return;
      return handleGraphQL(req, res, url);
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
      await reconciler.stop();
      await apollo.stop();
      await relay.close();
      provider.shutdown();
      await upstream.close();
      await events.close();
      await store.close();
    },
  };
}
