import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ClientAuth } from './auth/client.auth';
import { ClientRateLimit } from './auth/client.rate-limit';
import { Config } from './config';
import { DisbursementService } from './disbursements/disbursement.service';
import { GraphQLServing } from './graphql/gateway.context';
import { GraphQLOperations } from './graphql/operations/operation.core';
import { TrustedDocuments } from './graphql/operations/trusted-documents.gate';
import { TrustedOperation } from './graphql/operations/trusted-documents.manifest';
import { buildGatewaySchema } from './graphql/schema/gateway.schema';
import { buildSubgraph } from './graphql/schema/subgraph.schema';
import { GraphQLHttpHandler } from './graphql/transports/http.transport';
import { acceptsMultipartSubscription, serveMultipart } from './graphql/transports/multipart.transport';
import { createSseHandler } from './graphql/transports/sse.transport';
import { attachGraphQLWs } from './graphql/transports/ws.transport';
import { GatewayMetrics } from './observability/gateway.metrics';
import { Logger } from './observability/pino.logger';

export interface GraphQLParts {
  httpServer: Server;
  config: Config;
  service: DisbursementService;
  auth: ClientAuth;
  rateLimit: ClientRateLimit;
  logger: Logger;
  metrics: GatewayMetrics;
  /** TRUSTED_DOCUMENTS, read at startup (trusted-documents.manifest.ts). */
  trustedOperations?: readonly TrustedOperation[];
  allowedOrigins: ReadonlySet<string>;
}

export interface GraphQLEndpoints {
  /** /graphql: multipart subscriptions, otherwise GraphQL over HTTP (Apollo). */
  graphql(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** /graphql/stream: server-sent events. */
  stream(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends every stream and websocket, drains the requests in flight, and closes the HTTP server. */
  stop(): Promise<void>;
}

/** GraphQL on every transport: over HTTP and multipart, server-sent events, and graphql-ws on the same server. */
export async function startGraphQL(parts: GraphQLParts): Promise<GraphQLEndpoints> {
  const { httpServer, config, logger, metrics } = parts;
  // Served as a Federation 2 subgraph too (docs/federation.md); schema.graphql prints the standalone part.
  const schema = buildSubgraph(buildGatewaySchema({ allowPrivateNetworks: config.relay.allowPrivateNetworks }));
  const trustedDocuments =
    parts.trustedOperations &&
    new TrustedDocuments(parts.trustedOperations, {
      mode: config.trustedDocuments?.mode ?? 'enforce',
      routerTokens: config.trustedDocuments?.routerTokens ?? [],
      introspection: config.introspection,
      logger,
      metrics,
    });
  if (trustedDocuments) metrics.operationLabels.useOnly(trustedDocuments.names);
  // One set of dependencies for both transports, so HTTP and websockets cannot drift apart.
  const serving: GraphQLServing = {
    schema,
    service: parts.service,
    auth: parts.auth,
    rateLimit: parts.rateLimit,
    logger,
    metrics,
    introspection: config.introspection,
    trustedDocuments,
  };
  // One core of rules for graphql-ws, multipart HTTP and server-sent events; Apollo serves plain HTTP with the same rules.
  const operations = new GraphQLOperations(serving, config.http.maxSubscriptionsPerClient);
  const ws = attachGraphQLWs(httpServer, operations, { allowedOrigins: parts.allowedOrigins });
  const apollo = new GraphQLHttpHandler({
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
  await apollo.start();
  return {
    graphql: async (req, res, url) =>
      acceptsMultipartSubscription(req) ? serveMultipart(operations, req, res) : apollo.handle(req, res, url),
    stream: createSseHandler(operations),
    stop: () => apollo.stop(),
  };
}
