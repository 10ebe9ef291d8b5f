import { differingFields } from './disbursement.fingerprint';
import { DisbursementRequest } from './disbursement.model';
import { ProviderError } from './disbursement.ports';

/**
 * Every `extensions.code` the gateway itself answers with, on HTTP and websockets alike
 * (docs/errors.md). The constructors live by their users: the domain's here, the transports' and
 * quotas' in src/graphql/request.errors.ts, the credentials' in src/auth/auth.errors.ts.
 */
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
  /** An approval named what it approves (expectedDetails) and the thing changed since: nothing approved. */
  STALE_APPROVAL: 'STALE_APPROVAL',
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
  /** The beneficiary at fault: the one not payable, or the existing one a duplicate would copy. */
  beneficiaryId?: string;
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

/** Checked again at its approval, the payout was refused (send.recheck.ts): CANCELLED, never sent. */
export function refusedBeforeSend(referenceId: string, why: string): GatewayError {
  return invalidState(referenceId, 'CANCELLED', `refused at its approval, never sent: ${why}`);
}

/**
 * Its seal was made under an audit key this gateway does not seal with (during a key rotation, another
 * replica's): nothing was decided; a gateway whose key in use it is can approve it.
 */
export function sealedElsewhere(referenceId: string, keyId: string): GatewayError {
  return new GatewayError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `Payout ${referenceId} was sealed under audit key ${keyId}, which this gateway does not seal with; nothing was decided. Retry (another replica), or see the audit key rotation runbook.`,
    { referenceId, retryAfter: 5 },
  );
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

export function noSuchPayout(referenceId: string): GatewayError {
  return new GatewayError(ErrorCode.BAD_USER_INPUT, `You have no payout with referenceId ${referenceId}.`, {
    referenceId,
    fields: ['referenceId'],
  });
}

export function badInput(message: string, fields?: string[]): GatewayError {
  return new GatewayError(ErrorCode.BAD_USER_INPUT, message, { fields });
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

/** A valid credential that may not do this. */
export function forbidden(message: string): GatewayError {
  return new GatewayError(ErrorCode.FORBIDDEN, message);
}

/** No beneficiary of this merchant by that id (another merchant's is as unknown as none). */
export function noSuchBeneficiary(id: string, field = 'id'): GatewayError {
  return new GatewayError(ErrorCode.BAD_USER_INPUT, `You have no beneficiary with id ${id}.`, {
    beneficiaryId: id,
    fields: [field],
  });
}

/** A beneficiary that cannot be paid, approved or changed in its state (e.g. ARCHIVED, AWAITING_APPROVAL). */
export function beneficiaryState(id: string, status: string, why: string): GatewayError {
  return new GatewayError(ErrorCode.INVALID_STATE, `Beneficiary ${id} is ${status}: ${why}`, {
    beneficiaryId: id,
    status,
  });
}

/** The account details are an active beneficiary's already; naming it, so the client pays that one. */
export function duplicateBeneficiary(existingId: string): GatewayError {
  return new GatewayError(
    ErrorCode.BAD_USER_INPUT,
    `These account details are beneficiary ${existingId}'s already: pay or change that one.`,
    { beneficiaryId: existingId, fields: ['input.accountNumber'] },
  );
}

export function selfApprovedBeneficiary(id: string): GatewayError {
  return new GatewayError(
    ErrorCode.FORBIDDEN,
    `You set beneficiary ${id}'s account details, so you cannot approve them: another person with payouts:approve must.`,
    { beneficiaryId: id },
  );
}

/** The beneficiary's details are not the ones the approver saw (`expectedDetails`): nothing approved. */
export function staleBeneficiaryApproval(id: string): GatewayError {
  return new GatewayError(
    ErrorCode.STALE_APPROVAL,
    `Beneficiary ${id}'s details changed since you saw them: nothing was approved. Look at them again.`,
    { beneficiaryId: id, fields: ['expectedDetails'] },
  );
}
