import { differingFields } from './disbursement.fingerprint';
import { DisbursementRequest } from './disbursement.model';
import { ProviderError } from './disbursement.ports';

/** Every `extensions.code` the gateway itself answers with, on HTTP and websockets alike (README "Errors"). */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  RATE_LIMITED: 'RATE_LIMITED',
  REFERENCE_CONFLICT: 'REFERENCE_CONFLICT',
  UPSTREAM_AUTH_FAILED: 'UPSTREAM_AUTH_FAILED',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  OUTCOME_UNKNOWN: 'OUTCOME_UNKNOWN',
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  INVALID_STATE: 'INVALID_STATE',
  CURSOR_EXPIRED: 'CURSOR_EXPIRED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** TRUSTED_DOCUMENTS: the operation's id (persisted query hash or documentId) is not in the manifest. */
  PERSISTED_QUERY_NOT_IN_LIST: 'PERSISTED_QUERY_NOT_IN_LIST',
  /** TRUSTED_DOCUMENTS: the operation's body is not one of the manifest's. */
  QUERY_NOT_IN_SAFELIST: 'QUERY_NOT_IN_SAFELIST',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface GatewayErrorDetails {
  /** Input paths at fault, e.g. `input.amount`. */
  fields?: string[];
  /** Seconds the client should wait before trying again. */
  retryAfter?: number;
  referenceId?: string;
  /** LIMIT_EXCEEDED: the control that refused (e.g. `dailyLimit`). */
  limit?: string;
  /** LIMIT_EXCEEDED: what that control still allows, as a Decimal string. */
  remaining?: string;
  /** INVALID_STATE: the payout's status. */
  status?: string;
}

/** A failure the client is meant to see: a code and a safe message, nothing internal. */
export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: GatewayErrorDetails = {},
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

/** The referenceId already names a payout with other content; `fields` are the request fields that differ. */
export function referenceConflict(referenceId: string, fields: string[]): GatewayError {
  return new GatewayError(
    ErrorCode.REFERENCE_CONFLICT,
    `referenceId ${referenceId} was already used for a different payout (differs in: ${fields.join(', ')})`,
    { fields: fields.map((f) => `input.${f}`), referenceId },
  );
}

export function requestConflict(existing: DisbursementRequest, request: DisbursementRequest): GatewayError {
  return referenceConflict(request.referenceId, differingFields(existing, request));
}

export function storeUnavailable(referenceId?: string): GatewayError {
  return new GatewayError(
    ErrorCode.SERVICE_UNAVAILABLE,
    referenceId
      ? 'The gateway cannot record payouts right now (its store is unreachable); nothing was sent. Retry later.'
      : 'The gateway cannot read payouts right now (its store is unreachable). Retry later.',
    referenceId ? { referenceId } : {},
  );
}

export function outcomeUnknown(referenceId: string): GatewayError {
  return new GatewayError(
    ErrorCode.OUTCOME_UNKNOWN,
    'The provider may have received this payout but gave no usable answer. It is kept as UNKNOWN and reconciled; retry with the same referenceId to learn its state, never with a new one.',
    { referenceId },
  );
}

export function upstreamUnavailable(
  referenceId: string,
  why = 'The payout provider is unavailable; nothing was sent. Retry later.',
): GatewayError {
  return new GatewayError(ErrorCode.UPSTREAM_UNAVAILABLE, why, { referenceId });
}

/** A payout control refused the amount before anything was stored or sent. */
export function limitExceeded(referenceId: string, limit: string, remaining: string, currency: string): GatewayError {
  return new GatewayError(
    ErrorCode.LIMIT_EXCEEDED,
    `The amount is above what ${limit} allows: ${remaining} ${currency} remaining. Nothing was stored or sent.`,
    { referenceId, limit, remaining, fields: ['input.amount'] },
  );
}

/** A second reconciliation run while the merchant's last one is still running. */
export function reconciliationRunning(runId: string): GatewayError {
  return new GatewayError(
    ErrorCode.INVALID_STATE,
    `Reconciliation run ${runId} is still RUNNING: one runs at a time; wait for it to end`,
    { status: 'RUNNING' },
  );
}

/** Approve, reject or cancel of a payout that no longer awaits approval. */
export function invalidState(referenceId: string, status: string, why: string): GatewayError {
  return new GatewayError(ErrorCode.INVALID_STATE, `Payout ${referenceId} is ${status}: ${why}`, {
    referenceId,
    status,
  });
}

export function selfApproval(referenceId: string): GatewayError {
  return new GatewayError(
    ErrorCode.FORBIDDEN,
    `You requested payout ${referenceId}, so you cannot approve it: another person with payouts:approve must.`,
    { referenceId },
  );
}

export function notYourPayout(referenceId: string): GatewayError {
  return new GatewayError(
    ErrorCode.FORBIDDEN,
    `Only the person who requested payout ${referenceId}, or an approver (payouts:approve), may cancel it.`,
    { referenceId },
  );
}

/** The process is shutting down: nothing was decided or sent; another replica (or this one restarted) can take it. */
export function shuttingDown(referenceId: string): GatewayError {
  return new GatewayError(
    ErrorCode.SERVICE_UNAVAILABLE,
    'The gateway is shutting down: nothing was decided or sent. Retry.',
    {
      referenceId,
    },
  );
}

/** A request the gateway will not start because it is stopping (a long export nothing could cut later). */
export function gatewayStopping(): GatewayError {
  return new GatewayError(ErrorCode.SERVICE_UNAVAILABLE, 'The gateway is shutting down: retry in a moment.');
}

export function noSuchPayout(referenceId: string): GatewayError {
  return new GatewayError(ErrorCode.BAD_USER_INPUT, `You have no payout with referenceId ${referenceId}.`, {
    referenceId,
    fields: ['referenceId'],
  });
}

export function badInput(message: string, fields?: string[]): GatewayError {
  return new GatewayError(ErrorCode.BAD_USER_INPUT, message, { fields });
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

/** A `disbursementEvents` cursor whose change is no longer kept: refetch, then subscribe without `after`. */
export function cursorExpired(): GatewayError {
  return new GatewayError(
    ErrorCode.CURSOR_EXPIRED,
    'The changes after this cursor are no longer kept: refetch disbursementHistory, then subscribe without after',
    { fields: ['after'] },
  );
}

/** A `disbursementEvents` cursor this gateway never gave this merchant (malformed, altered, or another merchant's). */
export function unknownCursor(): GatewayError {
  return badInput('after is not a cursor this gateway gave you', ['after']);
}

/** What a provider failure means for the client. Its text is already free of secrets (the upstream client removes them). */
export function fromProviderError(error: unknown, referenceId: string): GatewayError {
  if (!(error instanceof ProviderError))
    return upstreamUnavailable(referenceId, 'The payout provider could not be reached.');
  switch (error.kind) {
    case 'rejected':
      return new GatewayError(ErrorCode.BAD_USER_INPUT, `The provider rejected the request: ${error.message}`, {
        referenceId,
        fields: error.details.field ? [`input.${error.details.field}`] : undefined,
      });
    case 'auth':
      return providerAuthFailed(referenceId);
    case 'rate-limited':
      return providerRateLimited(error.details.retryAfter, referenceId);
    case 'unknown':
      return outcomeUnknown(referenceId);
    case 'unavailable':
    case 'server-error':
      return upstreamUnavailable(referenceId);
  }
}

/** The provider refused the merchant key (401/403): the operator's problem, never the client's. */
export function providerAuthFailed(referenceId?: string): GatewayError {
  return new GatewayError(
    ErrorCode.UPSTREAM_AUTH_FAILED,
    "The payout provider refused the gateway's merchant credentials; the operator has been alerted.",
    referenceId ? { referenceId } : {},
  );
}

/** The provider answered 429. */
export function providerRateLimited(retryAfter: number | undefined, referenceId?: string): GatewayError {
  return new GatewayError(ErrorCode.RATE_LIMITED, 'The payout provider is rate limiting this merchant; retry later.', {
    retryAfter,
    ...(referenceId && { referenceId }),
  });
}

/** The provider asked for a pause earlier and it has not passed: this payout was held back, not sent. */
export function providerPaused(retryAfter: number, referenceId: string): GatewayError {
  return new GatewayError(
    ErrorCode.RATE_LIMITED,
    'The payout provider asked for a pause; this payout was not sent. Retry later.',
    {
      referenceId,
      retryAfter,
    },
  );
}

/** A balance read that the provider could not answer (nothing is ever sent by a read). */
export function balanceUnavailable(): GatewayError {
  return new GatewayError(
    ErrorCode.UPSTREAM_UNAVAILABLE,
    'The payout provider could not tell the wallet balance right now; retry later.',
  );
}

/** The client's own credential is missing or invalid. */
export function unauthenticated(
  message = 'Missing or invalid client credentials: send Authorization: Bearer <token>',
): GatewayError {
  return new GatewayError(ErrorCode.UNAUTHENTICATED, message);
}

/** The credential a long-lived operation was accepted with has expired: the client reconnects with a fresh one. */
export function tokenExpired(): GatewayError {
  return unauthenticated('The token expired: reconnect with a fresh one');
}

/** A valid credential that may not do this. */
export function forbidden(message: string): GatewayError {
  return new GatewayError(ErrorCode.FORBIDDEN, message);
}

/** Credentials cannot be checked right now (the identity provider's key set is unreachable): not the client's fault. */
export function credentialsUncheckable(): GatewayError {
  return new GatewayError(ErrorCode.SERVICE_UNAVAILABLE, 'The gateway cannot check tokens right now; retry later');
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

/** The request could not be read as GraphQL over HTTP. */
export function badRequest(message: string): GatewayError {
  return new GatewayError(ErrorCode.BAD_REQUEST, message);
}

/** A mutation sent with GET, which GraphQL over HTTP keeps for reads; answered 405 with `allow: POST`. */
export function mutationOverGet(): GatewayError {
  return badRequest('GET requests only support query and subscription operations, not mutation operations');
}

/** Anything unexpected: the cause is logged, never shown. */
export function internalError(): GatewayError {
  return new GatewayError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error');
}
