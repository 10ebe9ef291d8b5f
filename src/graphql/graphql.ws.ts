import { GraphQLError } from 'graphql';
import { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { Principal } from '../auth/client.auth';
import { formatError, refusalError } from './gateway.errors';
import { createContext, GraphQLServing } from './gateway.context';
import { parseAndValidate } from './graphql.armor';
import { closeOnExpiry } from './graphql.ws-expiry';
import { scopeRefusal } from './operation.scopes';

export interface GraphQLWsOptions extends GraphQLServing {
  /** Subscriptions one connection may hold at once. */
  maxSubscriptionsPerConnection?: number;
}

type ConnectionParams = Record<string, unknown> | undefined;
type WsContext = Context<ConnectionParams, { request: IncomingMessage }>;

function authorizationOf(ctx: WsContext): string | undefined {
  const value = ctx.connectionParams?.authorization;
  return typeof value === 'string' ? value : undefined;
}

function refusal(code: string, message: string, extensions: Record<string, unknown> = {}): GraphQLError[] {
  return [new GraphQLError(message, { extensions: { code, ...extensions } })];
}

/**
 * graphql-ws on the same server and path as HTTP GraphQL. A connection without valid credentials
 * is closed with 4403 before any operation runs; each operation is rate limited, validated with
 * the same limits as HTTP, and gets its own context.
 */
export function attachGraphQLWs(httpServer: Server, opts: GraphQLWsOptions): { wsServer: WebSocketServer; dispose(): Promise<void> } {
  const { schema, service, auth, rateLimit, logger, metrics } = opts;
  const maxSubscriptions = opts.maxSubscriptionsPerConnection ?? 100;
  const connections = new WeakMap<object, { principal: Principal; ids: Set<string>; stopExpiry?: () => void }>();
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql', maxPayload: 64 * 1024 });
  const cleanup = useServer<ConnectionParams, { request: IncomingMessage }>(
    {
      schema,
      connectionInitWaitTimeout: 3_000,
      // Credentials are checked once, when the connection is made; its operations use the result.
      onConnect: async (ctx) => {
        const authentication = await auth.authenticate(authorizationOf(ctx), ctx.extra.request.socket.remoteAddress);
        if ('refused' in authentication) {
          // Not the client's fault: 1013 "try again later" rather than 4403, which means "get a new token".
          if (authentication.refused.code === 'SERVICE_UNAVAILABLE') ctx.extra.socket.close(1013, 'Cannot check tokens right now');
          return false;
        }
        const { principal } = authentication;
        const stopExpiry = principal.acceptedUntil === undefined ? undefined : closeOnExpiry(ctx, principal.acceptedUntil);
        connections.set(ctx, { principal, ids: new Set(), stopExpiry });
        metrics.websockets.inc();
        return true;
      },
      onClose: (ctx) => {
        const connection = connections.get(ctx);
        if (!connection) return;
        connection.stopExpiry?.();
        // Operations still running when the socket went away end with it.
        metrics.subscriptions.dec(connection.ids.size);
        metrics.websockets.dec();
        connections.delete(ctx);
      },
      onSubscribe: async (ctx, id, payload) => {
        const connection = connections.get(ctx);
        if (!connection) return refusal('UNAUTHENTICATED', 'Missing or invalid client credentials');
        const { principal, ids } = connection;
        if (ids.size >= maxSubscriptions) return refusal('RATE_LIMITED', `At most ${maxSubscriptions} operations per connection`);
        const retryAfter = await rateLimit.retryAfter(principal.quotaKey);
        if (retryAfter !== undefined)
          return refusal('RATE_LIMITED', `Too many operations from this client; retry in ${retryAfter} s`, { retryAfter });
        const checked = parseAndValidate(schema, payload.query);
        if ('errors' in checked) return checked.errors;
        const refused = scopeRefusal(checked.document, payload.operationName, principal.scopes);
        if (refused) return [refusalError(refused)];
        ids.add(id);
        metrics.subscriptions.inc();
        metrics.operations.inc({ operation: payload.operationName ?? 'anonymous', type: 'websocket', outcome: 'ok' });
        return {
          schema,
          document: checked.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: createContext(service, principal, randomUUID()),
        };
      },
      onComplete: (ctx, id) => {
        if (connections.get(ctx)?.ids.delete(id)) metrics.subscriptions.dec();
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(e.toJSON(), e, logger)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e, logger)) } : undefined,
    },
    wsServer,
  );
  return {
    wsServer,
    dispose: async () => {
      await cleanup.dispose();
    },
  };
}
