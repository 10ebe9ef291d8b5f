import { ErrorCode, GatewayError } from '../disbursements/disbursement.errors';

// The client's credentials refused or not checkable. Their codes are the contract in
// src/disbursements/disbursement.errors.ts.

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

/** The shared token a long-lived operation was accepted with was removed from the configuration. */
export function tokenRevoked(): GatewayError {
  return unauthenticated('The token is no longer accepted: reconnect with a current one');
}

/** Credentials cannot be checked right now (the identity provider's key set is unreachable): not the client's fault. */
export function credentialsUncheckable(): GatewayError {
  return new GatewayError(ErrorCode.SERVICE_UNAVAILABLE, 'The gateway cannot check tokens right now; retry later');
}
