import { Disbursement, EventSource, ProviderRecord } from './disbursement.model';
import { DisbursementEvents, DisbursementStore, ProviderPort } from './disbursement.ports';
import { ReconcilePolicy, rescheduled } from './disbursement.schedule';
import { applyStatusUpdate } from './disbursement.status';
import { RecordWriter } from './disbursement.writer';

/** What every use case works with: the ports, the one writer, the clock and the check policy. */
export interface DomainContext {
  store: DisbursementStore;
  events: DisbursementEvents;
  provider: ProviderPort;
  writer: RecordWriter;
  policy: ReconcilePolicy;
  now: () => Date;
}

/** The status rules applied to a stored record, with its next check rescheduled on a status change. */
export function statusChange(ctx: DomainContext, record: ProviderRecord, source: EventSource, deliveryId?: string) {
  return (current: Disbursement): Disbursement | undefined => {
    const now = ctx.now();
    const next = applyStatusUpdate(current, { record, source, at: now.toISOString(), deliveryId });
    return next && rescheduled(current, next, now, ctx.policy);
  };
}
