import { ServerResponse } from 'node:http';
import { GatewayError } from '../disbursements/disbursement.errors';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** An error in the GraphQL response shape, for requests refused before GraphQL runs. */
export function sendGraphQLError(res: ServerResponse, status: number, error: GatewayError): void {
  const { retryAfter } = error.details;
  sendJson(res, status, {
    errors: [
      { message: error.message, extensions: { code: error.code, ...(retryAfter !== undefined && { retryAfter }) } },
    ],
  });
}
