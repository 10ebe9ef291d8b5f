import { requesterIdsOf } from '../../disbursements/approval.records';
import { publicFields } from '../../disbursements/disbursement.fields';
// The domain's record, next to the GraphQL type of the same name.
import * as domain from '../../disbursements/disbursement.model';
import { Disbursement } from './disbursement.type';

function date(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

/** The domain record as the schema shows it: its public fields; internal ones (claims, fingerprints, merchant) stay behind. */
export function toView(record: domain.Disbursement): Disbursement {
  return {
    ...publicFields(record),
    createdAt: date(record.createdAt),
    sendAt: date(record.sendAt),
    updatedAt: new Date(record.updatedAt),
    history: record.history.map((e) => ({
      ...e,
      at: new Date(e.at),
      repeated: e.repeated ?? 1,
      lastAt: date(e.lastAt),
    })),
    relay: record.relay && {
      ...record.relay,
      attempts: record.relay.attempts.map((a) => ({ ...a, at: new Date(a.at) })),
    },
    approval: record.approval && {
      requestedBy: record.approval.requestedBy,
      decidedBy: record.approval.decidedBy,
      decision: record.approval.decision,
      decidedAt: date(record.approval.decidedAt),
      reason: record.approval.reason,
      expiresAt: new Date(record.approval.expiresAt),
      requesterIds: requesterIdsOf(record),
    },
    sendsAgain: record.status === 'UNKNOWN' && domain.gatewaySends(record),
  };
}
