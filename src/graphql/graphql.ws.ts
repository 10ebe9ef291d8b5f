import { GraphQLError } from 'graphql';
import { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { clientKey } from '../auth/client.rate-limit';
import { MerchantAccount } from '../auth/merchant.registry';
import { formatError } from './gateway.errors';
import { createContext, GraphQLServing } from './gateway.context';
import { parseAndValidate } from './graphql.armor';

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
  const { schema, merchants, rateLimit, logger, metrics } = opts;
  const maxSubscriptions = opts.maxSubscriptionsPerConnection ?? 100;
  const connections = new WeakMap<object, { merchant: MerchantAccount; quotaKey: string; ids: Set<string> }>();
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql', maxPayload: 64 * 1024 });
  const cleanup = useServer<ConnectionParams, { request: IncomingMessage }>(
    {
      schema,
      connectionInitWaitTimeout: 3_000,
      // Credentials are checked once, when the connection is made; its operations use the result.
      onConnect: (ctx) => {
        const authorization = authorizationOf(ctx);
        const merchant = merchants.authenticate(authorization);
        if (!merchant) return false;
        connections.set(ctx, { merchant, quotaKey: clientKey(authorization, ctx.extra.request.socket.remoteAddress), ids: new Set() });
        metrics.websockets.inc();
        return true;
      },
      onClose: (ctx) => {
        const connection = connections.get(ctx);
        if (!connection) return;
        // Operations still running when the socket went away end with it.
        metrics.subscriptions.dec(connection.ids.size);
        metrics.websockets.dec();
        connections.delete(ctx);
      },
      onSubscribe: async (ctx, id, payload) => {
        const connection = connections.get(ctx);
        if (!connection) return refusal('UNAUTHENTICATED', 'Missing or invalid client credentials');
        const { merchant, quotaKey, ids } = connection;
        if (ids.size >= maxSubscriptions) return refusal('RATE_LIMITED', `At most ${maxSubscriptions} operations per connection`);
        const retryAfter = await rateLimit.retryAfter(quotaKey);
        if (retryAfter !== undefined)
          return refusal('RATE_LIMITED', `Too many operations from this client; retry in ${retryAfter} s`, { retryAfter });
        const checked = parseAndValidate(schema, payload.query);
        if ('errors' in checked) return checked.errors;
        ids.add(id);
        metrics.subscriptions.inc();
        metrics.operations.inc({ operation: payload.operationName ?? 'anonymous', type: 'websocket', outcome: 'ok' });
        return {
          schema,
          document: checked.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: createContext(opts, merchant, randomUUID()),
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
