import { Context } from 'graphql-ws';
import { Extra, useServer } from 'graphql-ws/use/ws';
import { IncomingMessage, Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { originAllowed } from '../../http/http.cors';
import { ErrorCode } from '../../disbursements/disbursement.errors';
import { unauthenticated } from '../../auth/auth.errors';
import { BODY_LIMIT, MAX_STREAM_BUFFERED_BYTES } from './http.request';
import { GraphQLOperations, OperationConnection, refusal } from '../operations/operation.core';
import { closeOnExpiry } from './ws.expiry';

export interface GraphQLWsOptions {
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

function authorizationOf(ctx: WsContext): string | undefined {
  const value = ctx.connectionParams?.authorization;
  return typeof value === 'string' ? value : undefined;
}

/**
 * graphql-ws on the same server and path as HTTP GraphQL: a thin adapter over GraphQLOperations.
 * A connection without valid credentials is closed with 4403 before any operation runs; each
 * operation is admitted by the shared rules and gets its own context.
 */
export function attachGraphQLWs(
  httpServer: Server,
  core: GraphQLOperations,
  opts: GraphQLWsOptions,
): { wsServer: WebSocketServer; dispose(): Promise<void> } {
  const { schema, metrics } = core.serving;
  const maxSubscriptions = opts.maxSubscriptionsPerConnection ?? 100;
  const connections = new WeakMap<object, { operations: OperationConnection; stopExpiry?: () => void }>();
  const wsServer = new WebSocketServer({
    server: httpServer,
    path: '/graphql',
    maxPayload: BODY_LIMIT,
    // Browsers send cookies and reach the socket from any page; the Origin is checked at the upgrade.
    verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) =>
      originAllowed(req, opts.allowedOrigins) ? done(true) : done(false, 403, 'Origin not allowed'),
  });
  const cleanup = useServer<ConnectionParams>(
    {
      schema,
      execute: (args) => core.execute(args),
      subscribe: (args) => core.execute(args),
      connectionInitWaitTimeout: 3_000,
      // Credentials are checked once, when the connection is made; its operations use the result.
      onConnect: async (ctx) => {
        const authentication = await core.authenticate(authorizationOf(ctx), ctx.extra.request.socket.remoteAddress);
        if ('refused' in authentication) {
          // Not the client's fault: 1013 "try again later" rather than 4403, which means "get a new token".
          if (authentication.refused.code === ErrorCode.SERVICE_UNAVAILABLE)
            ctx.extra.socket.close(1013, 'Cannot check tokens right now');
          return false;
        }
        const { principal } = authentication;
        const stopExpiry = closeOnExpiry(ctx, principal);
        connections.set(ctx, { operations: core.connection(principal, 'websocket', maxSubscriptions), stopExpiry });
        metrics.websockets.inc();
        return true;
      },
      onClose: (ctx) => {
        const connection = connections.get(ctx);
        if (!connection) return;
        connection.stopExpiry?.();
        // Operations still running when the socket went away end with it.
        connection.operations.close();
        metrics.websockets.dec();
        connections.delete(ctx);
      },
      onSubscribe: async (ctx, id, payload) => {
        const connection = connections.get(ctx);
        if (!connection) return refusal(unauthenticated('Missing or invalid client credentials'));
        const admitted = await connection.operations.admit(id, payload, ctx.extra.request.headers);
        return 'errors' in admitted ? [...admitted.errors] : admitted.args;
      },
      onComplete: (ctx, id) => connections.get(ctx)?.operations.release(id),
      onError: (_ctx, _id, _payload, errors) => core.formatErrors(errors),
      onNext: (ctx, _id, _payload, _args, result) => {
        // What a subscriber has not read yet is bounded: a stalled client cannot hold memory without end.
        const { socket } = ctx.extra;
        if (socket.bufferedAmount > MAX_STREAM_BUFFERED_BYTES) socket.close(TOO_SLOW.code, TOO_SLOW.reason);
        return result.errors ? core.formatResult(result) : undefined;
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
