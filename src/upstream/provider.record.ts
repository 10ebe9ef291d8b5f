import { DisbursementStatus, PaymentType, ProviderRecord } from '../disbursements/disbursement.model';
import { canonicalDecimal } from '../disbursements/decimal.parse';

const STATUSES: Record<string, DisbursementStatus> = {
  pending: 'PENDING',
  successful: 'SUCCESSFUL',
  success: 'SUCCESSFUL',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  canceled: 'CANCELLED',
};

/**
 * Lower-cased names: the spec's anonymised ones and the real provider's (docs/provider.md), which
 * name the same operators of the same number prefixes (26097/26077, 26096/26076, 26095/26075).
 */
const PAYMENT_TYPES: Readonly<Record<string, PaymentType>> = {
  bank: 'BANK',
  operatoramoney: 'OPERATOR_A_MONEY',
  airtelmoney: 'OPERATOR_A_MONEY',
  operatorbmoney: 'OPERATOR_B_MONEY',
  mtnmoney: 'OPERATOR_B_MONEY',
  operatorckwacha: 'OPERATOR_C_KWACHA',
  zamtelkwacha: 'OPERATOR_C_KWACHA',
};

function paymentTypeOf(raw: string | undefined): PaymentType {
  const key = raw?.toLowerCase();
  return key !== undefined && Object.hasOwn(PAYMENT_TYPES, key) ? PAYMENT_TYPES[key] : 'OTHER';
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a provider record tolerantly: status in any letter case, amounts as numbers or strings,
 * an unknown status or payment type kept raw rather than refused. Returns undefined when the
 * body is not a record at all (no referenceId or no status).
 */
export function parseProviderRecord(body: unknown): ProviderRecord | undefined {
  if (!isObject(body)) return undefined;
  const referenceId = text(body.referenceId);
  const providerStatus = text(body.status);
  if (!referenceId || !providerStatus) return undefined;
  const providerPaymentType = text(body.paymentType);
  const amount = text(body.amount);
  return {
    referenceId,
    providerStatus,
    status: STATUSES[providerStatus.toLowerCase()] ?? 'UNKNOWN',
    providerPaymentType,
    paymentType: paymentTypeOf(providerPaymentType),
    amount: amount === undefined ? undefined : canonicalDecimal(amount),
    currency: text(body.currency),
    accountNumber: text(body.accountNumber),
    narration: text(body.narration),
    identifier: text(body.identifier),
    externalId: text(body.externalId),
    ipAddress: text(body.ipAddress),
    createdAt: text(body.createdAt),
    message: text(body.message),
  };
}

/** A callback body: the flat record, or the `{type, data}` envelope of the provider's signing example. */
export function unwrapEnvelope(body: unknown): unknown {
  return isObject(body) && isObject(body.data) && body.referenceId === undefined ? body.data : body;
}
