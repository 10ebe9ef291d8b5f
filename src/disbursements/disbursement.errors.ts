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
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface GatewayErrorDetails {
  /** Input paths at fault, e.g. `input.amount`. */
  fields?: string[];
  /** Seconds the client should wait before trying again. */
  retryAfter?: number;
  referenceId?: string;
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

export function badInput(message: string, fields?: string[]): GatewayError {
  return new GatewayError(ErrorCode.BAD_USER_INPUT, message, { fields });
}

/** What a provider failure means for the client. Its text is already free of secrets (the upstream client removes them). */
export function fromProviderError(error: unknown, referenceId: string): GatewayError {
  if (!(error instanceof ProviderError)) return upstreamUnavailable(referenceId, 'The payout provider could not be reached.');
  switch (error.kind) {
    case 'rejected':
      return new GatewayError(ErrorCode.BAD_USER_INPUT, `The provider rejected the request: ${error.message}`, {
        referenceId,
        fields: error.details.field ? [`input.${error.details.field}`] : undefined,
      });
    case 'auth':
      return new GatewayError(
        ErrorCode.UPSTREAM_AUTH_FAILED,
        "The payout provider refused the gateway's merchant credentials; the operator has been alerted.",
        { referenceId },
      );
    case 'rate-limited':
      return new GatewayError(ErrorCode.RATE_LIMITED, 'The payout provider is rate limiting this merchant; retry later.', {
        referenceId,
        retryAfter: error.details.retryAfter,
      });
    case 'unknown':
      return outcomeUnknown(referenceId);
    case 'unavailable':
    case 'server-error':
      return upstreamUnavailable(referenceId);
  }
}
