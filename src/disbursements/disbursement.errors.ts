/** The error codes of the product contract (ARCHITECTURE.md "GraphQL contract"). */
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  | 'REFERENCE_CONFLICT'
  | 'UPSTREAM_AUTH_FAILED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'OUTCOME_UNKNOWN'
  | 'SERVICE_UNAVAILABLE';

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
