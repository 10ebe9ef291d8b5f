import { getOperationAST, GraphQLError } from 'graphql';
import { Context } from 'graphql-ws';
import { Extra, useServer } from 'graphql-ws/use/ws';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { Principal } from '../auth/client.auth';
import { originAllowed } from '../http/http.cors';
import { ErrorCode, GatewayError, GatewayErrorDetails } from '../disbursements/disbursement.errors';
import { formatError, refusalError } from './gateway.errors';
import { createContext, GraphQLServing } from './gateway.context';
import { OperationChecker } from './graphql.armor';
import { closeOnExpiry } from './graphql.ws-expiry';
import { scopeRefusal } from './operation.scopes';

export interface GraphQLWsOptions extends GraphQLServing {
  /** Subscriptions one connection may hold at once. */
  maxSubscriptionsPerConnection?: number;
  /** CORS_ORIGINS: a browser page on another origin may not open the socket (see originAllowed). */
  allowedOrigins: ReadonlySet<string>;
}

type ConnectionParams = Record<string, unknown> | undefined;
type WsContext = Context<ConnectionParams, Extra>;

/**
 * 1013 "try again later": graphql-ws clients reconnect and subscribe again, and the first event
 * they get is the current state, so a subscriber that could not keep up misses no final status.
 */
const TOO_SLOW = { code: 1013, reason: 'Subscriber too slow: reconnect' };
/** Bytes that may wait unsent on one connection; past it the subscriber is too slow and is disconnected. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

function authorizationOf(ctx: WsContext): string | undefined {
  const value = ctx.connectionParams?.authorization;
  return typeof value === 'string' ? value : undefined;
}

/** A refusal carries a GatewayError, so formatError passes its code on as it does for resolvers. */
function refusal(code: ErrorCode, message: string, details: GatewayErrorDetails = {}): GraphQLError[] {
  return [new GraphQLError(message, { originalError: new GatewayError(code, message, details) })];
}

/**
 * graphql-ws on the same server and path as HTTP GraphQL. A connection without valid credentials
 * is closed with 4403 before any operation runs; each operation is rate limited, validated with
 * the same limits as HTTP, and gets its own context.
 */
export function attachGraphQLWs(httpServer: Server, opts: GraphQLWsOptions): { wsServer: WebSocketServer; dispose(): Promise<void> } {
  const { schema, auth, rateLimit, logger, metrics } = opts;
  const checker = new OperationChecker(schema, opts.introspection);
  const maxSubscriptions = opts.maxSubscriptionsPerConnection ?? 100;
  const connections = new WeakMap<object, { principal: Principal; ids: Set<string>; stopExpiry?: () => void }>();
  const wsServer = new WebSocketServer({
    server: httpServer,
    path: '/graphql',
    maxPayload: 64 * 1024,
    // Browsers send cookies and reach the socket from any page; the Origin is checked at the upgrade.
    verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) =>
      originAllowed(req, opts.allowedOrigins) ? done(true) : done(false, 403, 'Origin not allowed'),
  });
  const cleanup = useServer<ConnectionParams>(
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
        if (!connection) return refusal(ErrorCode.UNAUTHENTICATED, 'Missing or invalid client credentials');
        const { principal, ids } = connection;
        // The slot is taken before the first await: messages that arrive together cannot all pass the check.
        if (ids.size >= maxSubscriptions) return refusal('RATE_LIMITED', `At most ${maxSubscriptions} operations per connection`);
        ids.add(id);
        metrics.subscriptions.inc();
        const release = () => {
          if (ids.delete(id)) metrics.subscriptions.dec();
        };
        const retryAfter = await rateLimit.retryAfter(principal.quotaKey).catch((error: unknown) => {
          release();
          throw error;
        });
        if (retryAfter !== undefined) {
          release();
          return refusal('RATE_LIMITED', `Too many operations from this client; retry in ${retryAfter} s`, { retryAfter });
        }
        // The socket closed while the quota was checked: onClose has already counted this slot out.
        if (connections.get(ctx) !== connection) return refusal('UNAUTHENTICATED', 'The connection is closed');
        const checked = checker.check(payload.query);
        if ('errors' in checked) {
          release();
          return checked.errors;
        }
        const refused = scopeRefusal(checked.document, payload.operationName, principal.scopes);
        if (refused) {
          release();
          return [refusalError(refused)];
        }
        const operation = getOperationAST(checked.document, payload.operationName);
        metrics.operations.inc({ operation: metrics.operationLabels.label(operation?.name?.value), type: 'websocket', outcome: 'ok' });
        return {
          schema,
          document: checked.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: createContext(opts, principal, randomUUID()),
        };
      },
      onComplete: (ctx, id) => {
        if (connections.get(ctx)?.ids.delete(id)) metrics.subscriptions.dec();
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(e.toJSON(), e, logger)),
      onNext: (ctx, _id, _payload, _args, result) => {
        // What a subscriber has not read yet is bounded: a stalled client cannot hold memory without end.
        const { socket } = ctx.extra;
        if (socket.bufferedAmount > MAX_BUFFERED_BYTES) socket.close(TOO_SLOW.code, TOO_SLOW.reason);
        return result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e, logger)) } : undefined;
      },
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
