import { badInput, ErrorCode, GatewayError } from '../disbursements/disbursement.errors';

// Refusals of a request before any use case runs: how it came over HTTP or a websocket, the
// client's quotas, the operation's payout and representation counts and the trusted documents.
// Their codes are the contract in src/disbursements/disbursement.errors.ts.

/** The request could not be read as GraphQL over HTTP. */
export function badRequest(message: string): GatewayError {
  return new GatewayError(ErrorCode.BAD_REQUEST, message);
}

/** A mutation sent with GET, which GraphQL over HTTP keeps for reads; answered 405 with `allow: POST`. */
export function mutationOverGet(): GatewayError {
  return badRequest('GET requests only support query and subscription operations, not mutation operations');
}

/** An HTTP stream whose client does not read fast enough ends with this; the client subscribes again and gets the current state. */
export function subscriberTooSlow(): GatewayError {
  return new GatewayError(ErrorCode.RATE_LIMITED, 'Subscriber too slow: subscribe again');
}

/** One websocket connection runs at most this many operations at once. */
export function tooManyOperations(max: number): GatewayError {
  return new GatewayError(ErrorCode.RATE_LIMITED, `At most ${max} operations per connection`);
}

export function tooManyClientOperations(max: number): GatewayError {
  return new GatewayError(
    ErrorCode.RATE_LIMITED,
    `At most ${max} subscriptions at once per client: end one before starting another`,
  );
}

/** GET /exports/payouts.csv while `max` exports already run for the caller's merchant, or on this gateway. */
export function tooManyExports(max: number, where: 'merchant' | 'gateway'): GatewayError {
  const whose = where === 'merchant' ? 'for one merchant' : 'on this gateway';
  return new GatewayError(
    ErrorCode.RATE_LIMITED,
    `At most ${max} exports at once ${whose}: send this one again once another has finished`,
  );
}

/** TRUSTED_DOCUMENTS: an operation sent by an id the manifest does not hold (Apollo Router's code). */
export function persistedQueryNotInList(): GatewayError {
  return new GatewayError(
    ErrorCode.PERSISTED_QUERY_NOT_IN_LIST,
    "This operation's id is not in the gateway's trusted documents; nothing was run.",
  );
}

/** TRUSTED_DOCUMENTS: an operation whose body is not one of the manifest's (Apollo Router's code). */
export function queryNotInSafelist(): GatewayError {
  return new GatewayError(
    ErrorCode.QUERY_NOT_IN_SAFELIST,
    "This operation is not in the gateway's trusted documents; send a trusted operation by its id or its exact body. Nothing was run.",
  );
}

/** The client's own quota (CLIENT_RATE_LIMIT_PER_MIN) is spent for now. */
export function clientRateLimited(retryAfter: number, what = 'operations'): GatewayError {
  return new GatewayError(ErrorCode.RATE_LIMITED, `Too many ${what} from this client; retry in ${retryAfter} s`, {
    retryAfter,
  });
}

/** One operation carries more payouts than it may, across all its aliases; nothing was sent. */
export function tooManyPayouts(count: number, max: number, fields: string[]): GatewayError {
  return badInput(
    `One operation may carry at most ${max} payouts in all; this one carries ${count}. Nothing was sent.`,
    fields,
  );
}

/** One operation's `_entities` fields ask for more representations than it may, across all its aliases; nothing was read. */
export function tooManyRepresentations(count: number, max: number): GatewayError {
  return badInput(
    `representations may hold at most ${max} representations in one operation, across every _entities field; this one holds ${count}. Nothing was read.`,
    ['representations'],
  );
}

/** Anything unexpected: the cause is logged, never shown. */
export function internalError(): GatewayError {
  return new GatewayError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error');
}

/** A request the gateway will not start because it is stopping (a long export nothing could cut later). */
export function gatewayStopping(): GatewayError {
  return new GatewayError(ErrorCode.SERVICE_UNAVAILABLE, 'The gateway is shutting down: retry in a moment.');
}
