import { ExecutionResult, GraphQLError, GraphQLFormattedError } from 'graphql';
import { IncomingMessage, ServerResponse } from 'node:http';
import { ClientAuth, Principal } from '../../auth/client.auth';
import { ErrorCode, GatewayError } from '../../disbursements/disbursement.errors';
import { badRequest } from '../request.errors';
import { readBody } from '../../http/http.body';
import { sendGraphQLError, sendGraphQLErrors } from '../../http/http.reply';
import { GraphQLOperations, OperationRequest } from '../operations/operation.core';
import { documentIdOf } from '../operations/trusted-documents.gate';

/** The largest GraphQL request on every transport: an HTTP body, a websocket message. */
export const BODY_LIMIT = 64 * 1024;

/** Bytes one subscriber's connection or HTTP stream may leave unsent; past it the subscriber is too slow and is cut off. */
export const MAX_STREAM_BUFFERED_BYTES = 1024 * 1024;

const STATUS_OF_CODE: Partial<Record<string, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * Credentials of a request to /graphql on every HTTP transport (Apollo's, multipart, server-sent
 * events): the principal, or undefined once the refusal is answered 401 (with www-authenticate),
 * 403 or 503.
 */
export async function principalOf(
  auth: ClientAuth,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Principal | undefined> {
  const authentication = await auth.authenticate(req.headers.authorization, req.socket.remoteAddress);
  if ('principal' in authentication) return authentication.principal;
  const { code } = authentication.refused;
  if (code === ErrorCode.UNAUTHENTICATED) res.setHeader('www-authenticate', 'Bearer');
  sendGraphQLError(res, STATUS_OF_CODE[code] ?? 403, authentication.refused);
  return undefined;
}

/** Whether an operation ran as a subscription (a stream of results) rather than to one result. */
export const isAsyncIterable = (value: unknown): value is AsyncIterable<ExecutionResult> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const absent = (value: unknown): value is null | undefined => value === undefined || value === null;

/**
 * The operation a POST body or a query string names, checked as Apollo Server checks the same input
 * on `POST /graphql` (BAD_REQUEST, in its words), so a request reads the same on every transport.
 */
function operationOf(fields: Record<string, unknown>): OperationRequest | GatewayError {
  const { query, operationName, variables, extensions, documentId } = fields;
  if (!absent(query) && typeof query !== 'string') return badRequest('GraphQL queries must be strings.');
  for (const [name, value] of [
    ['variables', variables],
    ['extensions', extensions],
  ] as const) {
    if (typeof value === 'string') {
      return badRequest(
        `\`${name}\` in a POST body should be provided as an object, not a recursively JSON-encoded string.`,
      );
    }
    if (!absent(value) && !isRecord(value))
      return badRequest(`\`${name}\` in a POST body must be an object if provided.`);
  }
  if (!absent(operationName) && typeof operationName !== 'string') {
    return badRequest('`operationName` in a POST body must be a string if provided.');
  }
  const request: OperationRequest = {
    query,
    operationName,
    variables: variables as Record<string, unknown> | null | undefined,
    extensions,
    documentId,
  };
  // A trusted document's id stands for its text (trusted-documents.gate.ts).
  if (!query && documentIdOf(request) === undefined) {
    return badRequest('GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.');
  }
  return request;
}

/** The operation read, or undefined once its refusal (400) is sent. */
function refuseUnreadable(res: ServerResponse, read: OperationRequest | GatewayError): OperationRequest | undefined {
  if (!(read instanceof GatewayError)) return read;
  sendGraphQLError(res, 400, read);
  return undefined;
}

/**
 * The operation of a POST: JSON only. A browser must preflight that content type, so a page on
 * another origin cannot start an operation with the user's cookies (as Apollo's CSRF prevention).
 */
export async function jsonRequestOf(req: IncomingMessage, res: ServerResponse): Promise<OperationRequest | undefined> {
  if (!/^application\/json/i.test(req.headers['content-type'] ?? '')) {
    sendGraphQLError(res, 415, badRequest('Send the operation as content-type: application/json'));
    return undefined;
  }
  const raw = (await readBody(req, BODY_LIMIT)).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    sendGraphQLError(res, 400, badRequest('The request body is not valid JSON'));
    return undefined;
  }
  if (!isRecord(body)) {
    sendGraphQLError(res, 400, badRequest('The request body must be one JSON object'));
    return undefined;
  }
  return refuseUnreadable(res, operationOf(body));
}

/** The operation of a GET, from its query string (`variables` and `extensions` as JSON), read as Apollo Server reads it. */
export function searchRequestOf(req: IncomingMessage, res: ServerResponse): OperationRequest | undefined {
  const params = new URL(req.url ?? '/', 'http://gateway').searchParams;
  const fields: Record<string, unknown> = {
    query: params.get('query'),
    operationName: params.get('operationName'),
    documentId: params.get('documentId'),
  };
  for (const name of ['variables', 'extensions']) {
    const text = params.get(name);
    if (text === null) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return refuseUnreadable(res, badRequest(`The ${name} search parameter contains invalid JSON.`));
    }
    if (!isRecord(value))
      return refuseUnreadable(res, badRequest(`The ${name} search parameter should contain a JSON-encoded object.`));
    fields[name] = value;
  }
  return refuseUnreadable(res, operationOf(fields));
}

/** The HTTP status of a refused operation, by its first error's code. */
export function statusOf(errors: readonly GraphQLFormattedError[]): number {
  const code = errors[0]?.extensions?.code;
  return (typeof code === 'string' && STATUS_OF_CODE[code]) || 400;
}

/** A refusal answered before the stream opens, masked like every other error. */
export function sendRefusal(core: GraphQLOperations, res: ServerResponse, errors: readonly GraphQLError[]): void {
  const formatted = core.formatErrors(errors);
  sendGraphQLErrors(res, statusOf(formatted), formatted);
}

/** What a stream's failure looks like to its client: masked unless it is a gateway error. */
export function streamFailure(core: GraphQLOperations, error: unknown): GraphQLFormattedError[] {
  const graphQLError =
    error instanceof GraphQLError
      ? error
      : new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error as Error });
  return core.formatErrors([graphQLError]);
}
