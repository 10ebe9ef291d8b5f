import { CHANNEL_RULES, type AccountNumberRule } from '../disbursements/channel.rules';
import { operatorFor, type Channel, type PayoutRequest } from './sandbox.records';

/** Why a request was refused with 400; field is unset when the body as a whole is wrong. */
export interface FieldError {
  field?: string;
  message: string;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; error: FieldError };

class Invalid extends Error {
  constructor(
    readonly field: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requiredString(body: Body, field: string): string {
  const value = body[field];
  if (value === undefined || value === null || value === '') throw new Invalid(field, `${field} is required`);
  if (typeof value !== 'string') throw new Invalid(field, `${field} must be a string`);
  if (value.trim() === '') throw new Invalid(field, `${field} is required`);
  return value;
}

function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Invalid(field, `${field} must be a string`);
  return value;
}

function amountOf(body: Body): number {
  const value = body.amount;
  if (value === undefined || value === null || value === '') throw new Invalid('amount', 'amount is required');
  // A numeric string is accepted, as form-minded clients send one.
  const amount = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
    throw new Invalid('amount', 'amount must be a positive number');
  }
  return amount;
}

function currencyOf(body: Body): string {
  const currency = requiredString(body, 'currency');
  if (!/^[A-Za-z]{3}$/.test(currency)) throw new Invalid('currency', 'currency must be a three-letter currency code');
  return currency;
}

function accountNumberOf(body: Body, rule: AccountNumberRule): string {
  const accountNumber = requiredString(body, 'accountNumber');
  if (!rule.pattern.test(accountNumber)) throw new Invalid('accountNumber', `accountNumber ${rule.message}`);
  return accountNumber;
}

function validCallbackUrl(value: string): string {
  if (!URL.canParse(value) || !['http:', 'https:'].includes(new URL(value).protocol)) {
    throw new Invalid('callbackUrl', 'callbackUrl must be an absolute http or https URL');
  }
  return value;
}

/** The header wins over the bank body field when both are given. */
function callbackUrlOf(header: string | undefined, bodyField: string | undefined): string | undefined {
  const value = header ?? bodyField;
  return value === undefined ? undefined : validCallbackUrl(value);
}

function bankRequest(body: Body, callbackUrlHeader: string | undefined): PayoutRequest {
  const referenceId = requiredString(body, 'referenceId');
  const amount = amountOf(body);
  const currency = currencyOf(body);
  const narration = requiredString(body, 'narration');
  const accountNumber = accountNumberOf(body, CHANNEL_RULES.BANK.accountNumber);
  for (const field of ['swiftCode', 'firstName', 'lastName', 'accountHolderName', 'phoneNumber']) {
    requiredString(body, field);
  }
  optionalString(body, 'email');
  const callbackUrl = callbackUrlOf(callbackUrlHeader, optionalString(body, 'callbackUrl'));
  return { channel: 'bank', referenceId, amount, currency, accountNumber, paymentType: 'Bank', narration, callbackUrl };
}

function mobileMoneyRequest(body: Body, callbackUrlHeader: string | undefined): PayoutRequest {
  const referenceId = requiredString(body, 'referenceId');
  const amount = amountOf(body);
  const accountNumber = accountNumberOf(body, CHANNEL_RULES.MOBILE_MONEY.accountNumber);
  // The shape is the gateway's rule too; the operator is the provider's own check.
  const paymentType = operatorFor(accountNumber);
  if (!paymentType) {
    throw new Invalid('accountNumber', 'accountNumber does not belong to a supported mobile money operator');
  }
  const currency = currencyOf(body);
  const narration = optionalString(body, 'narration');
  return {
    channel: 'mobile-money',
    referenceId,
    amount,
    currency,
    accountNumber,
    paymentType,
    narration,
    callbackUrl: callbackUrlOf(callbackUrlHeader, undefined),
  };
}

function requestOf(channel: Channel, body: Body, callbackUrlHeader: string | undefined): PayoutRequest {
  switch (channel) {
    case 'bank':
      return bankRequest(body, callbackUrlHeader);
    case 'mobile-money':
      return mobileMoneyRequest(body, callbackUrlHeader);
    default:
      return channel satisfies never;
  }
}

/** Checks a create body (already parsed JSON) and the callbackUrl header; reports the first offending field. */
export function validateCreate(
  channel: Channel,
  body: unknown,
  callbackUrlHeader: string | undefined,
): Validated<PayoutRequest> {
  try {
    if (!isPlainObject(body)) throw new Invalid(undefined, 'Request body must be a JSON object');
    return { ok: true, value: requestOf(channel, body, callbackUrlHeader) };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, error: { field: err.field, message: err.message } };
    throw err;
  }
}
