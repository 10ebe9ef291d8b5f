import * as domain from '../../disbursements/beneficiary.model';
import { Beneficiary } from './beneficiary.type';

/**
 * The beneficiary as the schema shows it: the account number in full only when `full` (beneficiary(id)),
 * else masked to its last four digits; the merchant stays behind, and the requester's identity is kept for
 * requestedByYou but never shown.
 */
export function toBeneficiaryView(b: domain.Beneficiary, full: boolean): Beneficiary {
  const { channel: _channel, accountNumber, ...bank } = b.details;
  return {
    id: b.id,
    name: b.name,
    channel: b.details.channel,
    accountNumber: full ? accountNumber : domain.maskAccount(accountNumber),
    ...bank,
    status: b.status,
    createdBy: b.createdBy,
    approvedBy: b.approvedBy,
    changedAt: new Date(b.changedAt),
    payableFrom: new Date(b.payableFrom),
    createdAt: new Date(b.createdAt),
    updatedAt: new Date(b.updatedAt),
    detailsFingerprint: domain.detailsFingerprint(b),
    requesterId: b.requesterId,
  };
}
