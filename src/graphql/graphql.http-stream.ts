import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Principal } from '../auth/client.auth';
import { badRequest, ErrorCode } from '../disbursements/disbursement.errors';
import { readBody } from '../http/http.body';
import { sendGraphQLError, sendGraphQLErrors } from '../http/http.reply';
import { GraphQLOperations, OperationRequest } from './graphql.operations';

/** The same body limit as GraphQL over HTTP. */
const BODY_LIMIT = 64 * 1024;

/** Bytes one HTTP stream may leave unsent; past it the subscriber is too slow and its stream ends. */
export const MAX_STREAM_BUFFERED_BYTES = 1024 * 1024;

const STATUS_OF_CODE: Partial<Record<string, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * The parts multipart and server-sent events share before a stream opens: credentials (answered
 * 401/403/503 as GraphQL over HTTP answers them), a JSON body within the limit, and refusals.
 */
export async function principalOf(
  core: GraphQLOperations,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Principal | undefined> {
  const authentication = await core.authenticate(req.headers.authorization, req.socket.remoteAddress);
  if ('principal' in authentication) return authentication.principal;
  const { code } = authentication.refused;
  if (code === ErrorCode.UNAUTHENTICATED) res.setHeader('www-authenticate', 'Bearer');
  sendGraphQLError(res, STATUS_OF_CODE[code] ?? 403, authentication.refused);
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
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    sendGraphQLError(res, 400, badRequest('The request body must be one JSON object'));
    return undefined;
  }
  const { query, operationName, variables, extensions, documentId } = body as Record<string, unknown>;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    sendGraphQLError(res, 400, badRequest('variables must be an object'));
    return undefined;
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    sendGraphQLError(res, 400, badRequest('operationName must be a string'));
    return undefined;
  }
  return {
    query,
    operationName,
    variables: variables as Record<string, unknown> | null | undefined,
    extensions,
    documentId,
  };
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
