import { GraphQLFormattedError } from 'graphql';
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

interface Preference {
  q: number;
  specificity: number;
  order: number;
}

/** How an Accept header ranks `type`: by its most specific matching range, then that range's q. */
function preferenceOf(ranges: readonly string[][], type: string): Preference | undefined {
  const anySubtype = `${type.slice(0, type.indexOf('/'))}/*`;
  let best: Preference | undefined;
  ranges.forEach(([range, ...params], order) => {
    const specificity = range === type ? 2 : range === anySubtype ? 1 : range === '*/*' ? 0 : -1;
    if (specificity < 0) return;
    const given = params.find((p) => p.startsWith('q='));
    const q = given === undefined ? 1 : Number(given.slice(2));
    if (!best || specificity > best.specificity || (specificity === best.specificity && q > best.q)) {
      best = { q: Number.isNaN(q) ? 0 : q, specificity, order };
    }
  });
  return best;
}

/**
 * The media type of a GraphQL response (GraphQL over HTTP): application/graphql-response+json when
 * the client prefers it to application/json, else application/json, as Apollo Server chooses (a tie
 * goes to application/json). Clients read errors from the first even on a non-2xx status: Apollo
 * Client gives them as CombinedGraphQLErrors, where a non-2xx application/json is a ServerError.
 */
export function graphQLResponseType(accept: string | undefined): string {
  if (!accept) return JSON_TYPE;
  const ranges = accept.split(',').map((range) => range.split(';').map((part) => part.trim().toLowerCase()));
  const graphQL = preferenceOf(ranges, 'application/graphql-response+json');
  if (!graphQL || graphQL.q <= 0) return JSON_TYPE;
  const json = preferenceOf(ranges, 'application/json');
  if (!json || json.q <= 0) return GRAPHQL_RESPONSE_TYPE;
  const preferred = graphQL.q - json.q || graphQL.specificity - json.specificity || json.order - graphQL.order;
  return preferred > 0 ? GRAPHQL_RESPONSE_TYPE : JSON_TYPE;
}

/** A GraphQL response of errors alone, for requests refused before an operation runs, in the type the client prefers. */
export function sendGraphQLErrors(res: ServerResponse, status: number, errors: readonly GraphQLFormattedError[]): void {
  sendJson(res, status, { errors }, { 'content-type': graphQLResponseType(res.req.headers.accept) });
}

/** One gateway error in the GraphQL response shape, for requests refused before GraphQL runs. */
export function sendGraphQLError(res: ServerResponse, status: number, error: GatewayError): void {
  const { retryAfter } = error.details;
  sendGraphQLErrors(res, status, [
    { message: error.message, extensions: { code: error.code, ...(retryAfter !== undefined && { retryAfter }) } },
  ]);
}
