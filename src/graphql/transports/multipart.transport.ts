import { ExecutionResult, OperationTypeNode } from 'graphql';
import { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, subscriberTooSlow } from '../request.errors';
import {
  isAsyncIterable,
  jsonRequestOf,
  MAX_STREAM_BUFFERED_BYTES,
  principalOf,
  sendRefusal,
  streamFailure,
} from './http.request';
import { endOnExpiry, GraphQLOperations, refusal } from '../operations/operation.core';

/** Apollo's multipart subscription protocol: https://www.apollographql.com/docs/graphos/routing/operations/subscriptions/multipart-protocol */
const BOUNDARY = 'graphql';
const CONTENT_TYPE = `multipart/mixed;boundary="${BOUNDARY}";subscriptionSpec="1.0"`;
/** Apollo's router sends an empty part every 5 s, so proxies see traffic and the client sees the server alive. */
const HEARTBEAT_MS = 5_000;

/** Whether a request asks for a subscription over multipart HTTP (Apollo Client's HttpLink sends this for subscriptions). */
export function acceptsMultipartSubscription(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return req.method === 'POST' && /multipart\/mixed/i.test(accept) && /subscriptionSpec\s*=\s*"?1\.0"?/i.test(accept);
}

const subscriptionsOnly = (operation: OperationTypeNode) =>
  operation === OperationTypeNode.SUBSCRIPTION
    ? undefined
    : badRequest('Multipart answers subscriptions only: send queries and mutations as JSON');

/**
 * A subscription over `POST /graphql`, answered `multipart/mixed`: a thin adapter over
 * GraphQLOperations. Each result is a part `{"payload": result}`, a heartbeat part `{}` every
 * HEARTBEAT_MS; a failure of the stream itself is `{"payload": null, "errors": [...]}`. The
 * stream ends when the subscription completes, the token expires (with an error saying so), the
 * client reads too slowly, the gateway stops, or the client goes away.
 */
export async function serveMultipart(
  core: GraphQLOperations,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const principal = await principalOf(core.serving.auth, req, res);
  if (!principal) return;
  const request = await jsonRequestOf(req, res);
  if (!request) return;
  const operations = core.connection(principal, 'multipart', 1);
  const goneEarly = () => operations.close();
  res.once('close', goneEarly);
  try {
    const admitted = await operations.admit('1', request, req.headers, subscriptionsOnly);
    if ('errors' in admitted) return sendRefusal(core, res, admitted.errors);
    const result = await core.execute(admitted.args);
    if (res.destroyed) {
      // The client left while the subscription was being set up: end it, its listener with it.
      if (isAsyncIterable(result)) await result[Symbol.asyncIterator]().return?.();
      return;
    }
    res.writeHead(200, { 'content-type': CONTENT_TYPE, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    // Each part is followed at once by the next delimiter: a client hands a part on only once it has seen the delimiter after it.
    res.write(`\r\n--${BOUNDARY}`);
    const part = (body: unknown) =>
      res.write(`\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(body)}\r\n--${BOUNDARY}`);
    if (!isAsyncIterable(result)) {
      // Refused by the resolver before any event (an expired cursor, say): one part, then the end.
      part({ payload: core.formatResult(result) });
    } else {
      await stream(core, res, endOnExpiry(result, principal), part);
    }
    // The last delimiter becomes the closing one.
    if (!res.destroyed) res.end('--\r\n');
  } finally {
    res.off('close', goneEarly);
    operations.close();
  }
}

async function stream(
  core: GraphQLOperations,
  res: ServerResponse,
  results: AsyncIterableIterator<ExecutionResult>,
  part: (body: unknown) => void,
): Promise<void> {
  const stop = () => void results.return?.();
  const untrack = core.track(stop);
  res.once('close', stop);
  const heartbeat = setInterval(() => part({}), HEARTBEAT_MS);
  try {
    for await (const result of results) {
      if (res.destroyed) return;
      part({ payload: core.formatResult(result) });
      if (res.writableLength > MAX_STREAM_BUFFERED_BYTES) {
        part({ payload: null, errors: core.formatErrors(refusal(subscriberTooSlow())) });
        return;
      }
    }
  } catch (error) {
    if (!res.destroyed) part({ payload: null, errors: streamFailure(core, error) });
  } finally {
    clearInterval(heartbeat);
    res.off('close', stop);
    untrack();
    await results.return?.();
  }
}
