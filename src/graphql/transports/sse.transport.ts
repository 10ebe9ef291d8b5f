import { ExecutionResult, OperationTypeNode } from 'graphql';
import { createHandler, Request } from 'graphql-sse';
import { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, mutationOverGet } from '../request.errors';
import { graphQLResponseType, sendGraphQLError } from '../../http/http.reply';
import {
  isAsyncIterable,
  jsonRequestOf,
  MAX_STREAM_BUFFERED_BYTES,
  principalOf,
  searchRequestOf,
} from './http.request';
import { endOnExpiry, GraphQLOperations, OperationConnection, OperationRequest } from '../operations/operation.core';

/** graphql-sse wants an index signature on its context type; the core's contexts are GatewayContexts. */
type SseContext = Record<PropertyKey, unknown>;

/** What graphql-sse hands back to the callbacks below for one request. */
interface StreamRequest {
  operations: OperationConnection;
  /** The operation as the gateway read it, `documentId` and all. */
  request: OperationRequest;
  /** The running subscription, ended when the client goes away. */
  results?: AsyncIterableIterator<ExecutionResult>;
}

/**
 * GraphQL over server-sent events at `/graphql/stream`, graphql-sse's protocol in its distinct
 * connections mode (one operation per request): a thin adapter between graphql-sse's handler and
 * GraphQLOperations. Credentials are checked before anything else about the request; the request
 * is read here, as multipart reads it, the body within the HTTP limit (graphql-sse's own Node
 * adapter reads any size).
 */
export function createSseHandler(
  core: GraphQLOperations,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const handler = createHandler<IncomingMessage, StreamRequest, SseContext>({
    schema: core.serving.schema,
    // The core has parsed and validated the document with the shared rules already.
    validate: () => [],
    execute: (args) => core.execute(args),
    subscribe: (args) => core.execute(args),
    onSubscribe: async (req: Request<IncomingMessage, StreamRequest>) => {
      const { operations, request } = req.context;
      // Mutations go by POST (GraphQL over HTTP): a GET names what to read or watch.
      const overGet = req.method === 'GET' ? mutationOverGet() : undefined;
      const admitted = await operations.admit('', request, req.raw.headers, (operation) =>
        operation === OperationTypeNode.MUTATION ? overGet : undefined,
      );
      if ('errors' in admitted && overGet && admitted.errors[0]?.originalError === overGet) {
        // Before the stream, 405, as Apollo Server and graphql-sse answer it.
        return [
          JSON.stringify({ errors: core.formatErrors(admitted.errors) }),
          {
            status: 405,
            statusText: 'Method Not Allowed',
            headers: { allow: 'POST', 'content-type': graphQLResponseType(req.raw.headers.accept) },
          },
        ];
      }
      // Any other refusal is answered in the stream, as graphql-sse answers invalid operations: the client reads why (onNext masks it).
      // graphql-sse tells a result from arguments by its `data` key.
      return 'errors' in admitted
        ? { data: null, errors: [...admitted.errors] }
        : { ...admitted.args, contextValue: admitted.args.contextValue as unknown as SseContext };
    },
    onOperation: (_ctx, req, _args, result) => {
      if (!isAsyncIterable(result)) return undefined;
      const results = endOnExpiry(result, req.context.operations.principal);
      req.context.results = results;
      return results;
    },
    onNext: (_ctx, _req, result) => core.formatResult(result),
    onComplete: (_ctx, req) => req.context.operations.release(''),
  });

  return async (req, res) => {
    // Credentials first, as for every request to /graphql: without them nothing else is answered.
    const principal = await principalOf(core.serving.auth, req, res);
    if (!principal) return;
    // Distinct connections mode only: graphql-sse's single connection mode (PUT reservations) is not served.
    if (req.headers.accept !== 'text/event-stream' || (req.method !== 'POST' && req.method !== 'GET')) {
      return sendGraphQLError(res, 406, badRequest('Send GET or POST with accept: text/event-stream'));
    }
    const request = req.method === 'POST' ? await jsonRequestOf(req, res) : searchRequestOf(req, res);
    if (!request) return;
    // graphql-sse's own parser drops `documentId` and refuses a request without `query` (a trusted
    // document's id alone): it is given the query text only, and onSubscribe admits `request` itself.
    const query = typeof request.query === 'string' ? request.query : '';
    const context: StreamRequest = { operations: core.connection(principal, 'sse', 1), request };
    const gone = () => {
      void context.results?.return?.();
      context.operations.close();
    };
    res.once('close', gone);
    const untrack = core.track(gone);
    try {
      const [stream, init] = await handler({
        method: req.method,
        url: req.method === 'GET' ? `/graphql/stream?${new URLSearchParams({ query }).toString()}` : '/graphql/stream',
        headers: { get: (key) => req.headers[key.toLowerCase()]?.toString() },
        body: req.method === 'POST' ? JSON.stringify({ query }) : null,
        raw: req,
        context,
      });
      if (res.destroyed) {
        if (stream && typeof stream !== 'string') await stream.return();
        return;
      }
      res.writeHead(init.status, init.statusText, { ...init.headers, 'x-accel-buffering': 'no' });
      if (!stream || typeof stream === 'string') {
        res.end(stream ?? undefined);
        return;
      }
      const endStream = () => void stream.return();
      res.once('close', endStream);
      try {
        for await (const chunk of stream) {
          if (res.destroyed) break;
          res.write(chunk);
          // Too slow a reader: its stream ends, as a websocket's does; it subscribes again.
          if (res.writableLength > MAX_STREAM_BUFFERED_BYTES) break;
        }
      } finally {
        res.off('close', endStream);
        await stream.return();
      }
      if (!res.destroyed) res.end();
    } finally {
      res.off('close', gone);
      untrack();
      gone();
    }
  };
}
