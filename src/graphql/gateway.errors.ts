import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { ErrorCode, GatewayError, storeUnavailable } from '../disbursements/disbursement.errors';
import { StoreUnavailableError } from '../disbursements/disbursement.ports';
import { Logger } from '../observability/pino.logger';

/** Codes GraphQL and Apollo raise themselves before any resolver runs; their messages are safe. */
const REQUEST_CODES = new Set<string>([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  ErrorCode.BAD_USER_INPUT,
  ErrorCode.BAD_REQUEST,
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

/**
 * graphql-js's "Did you mean ...?" hints name fields, arguments and values a client did not ask
 * for: with introspection off they would spell the schema out. Removed on both transports.
 */
function withoutSuggestions(message: string): string {
  return message.replace(/\s*Did you mean [^?]*\?/g, '');
}

/**
 * A refusal raised before execution (scopes, websocket limits): a GraphQLError that carries its
 * GatewayError, so formatError shows its code. `httpStatus` is the status Apollo answers with.
 */
export function refusalError(error: GatewayError, httpStatus?: number): GraphQLError {
  return new GraphQLError(error.message, {
    originalError: error,
    extensions: { code: error.code, ...(httpStatus !== undefined && { http: { status: httpStatus } }) },
  });
}

/** The input path a variable-coercion message points at, e.g. `input.amount`. */
function fieldsOfCoercionMessage(message: string): string[] | undefined {
  const variable = /^Variable "\$(\w+)" got invalid value/.exec(message)?.[1];
  if (!variable) return undefined;
  const at = /at "([^"]+)"/.exec(message)?.[1] ?? variable;
  const field = /Field "(\w+)" (?:of required type|is not defined)/.exec(message)?.[1];
  return [field ? `${at}.${field}` : at];
}

/** The error behind a resolver's wrapping, or behind a refusal made before any resolver ran (graphql-ws). */
function causeOf(error: unknown): unknown {
  const unwrapped = unwrapResolverError(error);
  return unwrapped instanceof GraphQLError && unwrapped.originalError instanceof GatewayError
    ? unwrapped.originalError
    : unwrapped;
}

/**
 * What leaves the gateway: a code and a safe message. Gateway errors carry their details;
 * GraphQL's own request errors pass; anything else is logged and masked.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown, logger: Logger): GraphQLFormattedError {
  const original = causeOf(error);
  if (original instanceof GatewayError) {
    const { fields, retryAfter, referenceId, limit, remaining, status, beneficiaryId } = original.details;
    return {
      message: original.message,
      path: formatted.path,
      locations: formatted.locations,
      extensions: {
        code: original.code,
        ...(fields && { fields }),
        ...(retryAfter !== undefined && { retryAfter }),
        ...(referenceId && { referenceId }),
        ...(limit && { limit }),
        ...(remaining !== undefined && { remaining }),
        ...(status && { status }),
        ...(beneficiaryId && { beneficiaryId }),
      },
    };
  }
  if (original instanceof StoreUnavailableError) {
    const unavailable = storeUnavailable();
    return { message: unavailable.message, path: formatted.path, extensions: { code: unavailable.code } };
  }
  const code = typeof formatted.extensions?.code === 'string' ? formatted.extensions.code : undefined;
  if (code && REQUEST_CODES.has(code)) {
    const fields = code === ErrorCode.BAD_USER_INPUT ? fieldsOfCoercionMessage(formatted.message) : undefined;
    return {
      message: withoutSuggestions(formatted.message),
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code, ...(fields && { fields }) },
    };
  }
  if (original instanceof GraphQLError && !code && !formatted.path) {
    // A scalar or argument error raised by graphql-js itself during validation or coercion.
    return {
      message: withoutSuggestions(formatted.message),
      locations: formatted.locations,
      extensions: { code: ErrorCode.BAD_USER_INPUT },
    };
  }
  logger.error({ err: original }, 'unexpected error in a GraphQL operation');
  return {
    message: 'Internal server error',
    path: formatted.path,
    extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR },
  };
}
