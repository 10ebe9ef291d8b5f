import { Disbursement as Record } from '../disbursements/disbursement.model';
import { Disbursement } from './disbursement.type';

function date(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

/** The domain record as the schema shows it; internal fields (claims, fingerprints, merchant) stay behind. */
export function toView(record: Record): Disbursement {
  return {
    referenceId: record.referenceId,
    identifier: record.identifier,
    channel: record.channel,
    paymentType: record.paymentType,
    providerPaymentType: record.providerPaymentType,
    status: record.status,
    providerStatus: record.providerStatus,
    message: record.message,
    amount: record.amount,
    currency: record.currency,
    accountNumber: record.accountNumber,
    narration: record.narration,
    externalId: record.externalId,
    ipAddress: record.ipAddress,
    createdAt: date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
    history: record.history.map((e) => ({ ...e, at: new Date(e.at) })),
    relay: record.relay && { ...record.relay, attempts: record.relay.attempts.map((a) => ({ ...a, at: new Date(a.at) })) },
  };
}
