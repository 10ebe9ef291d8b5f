import { GraphQLFormattedError } from 'graphql';
import Negotiator from 'negotiator';
import { ServerResponse } from 'node:http';
import { GatewayError } from '../disbursements/disbursement.errors';

const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * The media type of a GraphQL response (GraphQL over HTTP), chosen from the Accept header as Apollo
 * Server chooses it, with the same library: application/json unless the client prefers
 * application/graphql-response+json (a tie goes to application/json). Clients read errors from the
 * latter even on a non-2xx status: Apollo Client gives them as CombinedGraphQLErrors, where a
 * non-2xx application/json is a ServerError.
 */
export function graphQLResponseType(accept: string | undefined): string {
  if (!accept) return JSON_TYPE;
  return new Negotiator({ headers: { accept } }).mediaType([JSON_TYPE, GRAPHQL_RESPONSE_TYPE]) ?? JSON_TYPE;
}

/**
 * A GraphQL response of errors alone, for requests refused before an operation runs, in the type the
 * client prefers. A 429 carries its first error's retryAfter as retry-after, on every transport.
 */
export function sendGraphQLErrors(res: ServerResponse, status: number, errors: readonly GraphQLFormattedError[]): void {
  const retryAfter = errors[0]?.extensions?.retryAfter;
  sendJson(
    res,
    status,
    { errors },
    {
      'content-type': graphQLResponseType(res.req.headers.accept),
      ...(status === 429 && typeof retryAfter === 'number' && { 'retry-after': String(retryAfter) }),
    },
  );
}

/** One gateway error in the GraphQL response shape, for requests refused before GraphQL runs. */
export function sendGraphQLError(res: ServerResponse, status: number, error: GatewayError): void {
  const { retryAfter } = error.details;
  sendGraphQLErrors(res, status, [
    { message: error.message, extensions: { code: error.code, ...(retryAfter !== undefined && { retryAfter }) } },
  ]);
}
