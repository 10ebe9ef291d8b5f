import { Disbursement, EventSource, ProviderRecord } from './disbursement.model';
import {
  BeneficiaryStore,
  DisbursementEvents,
  DisbursementStore,
  ProviderPort,
  RecordsReader,
} from './disbursement.ports';
import { applyProviderAnswer } from './disbursement.answer';
import { CheckPolicy } from './disbursement.checks';
import { RecordWriter } from './disbursement.writer';
import { ControlEvent } from './payout.controls';
import { AuditRule } from './disbursement.ports';
import { whenVisible } from './audit.rules';
import { AuditAction, EntryKey } from './audit.entry';
import { SealKeys } from './payout.seal';

/** What every use case works with: the ports, the one writer, the clock and the check policy. */
export interface DomainContext {
  store: DisbursementStore;
  events: DisbursementEvents;
  provider: ProviderPort;
  writer: RecordWriter;
  policy: CheckPolicy;
  now: () => Date;
  /** The IANA zone whose calendar day the daily limits count. */
  dayTimeZone: string;
  /** Told of every control action (held, approved, rejected, cancelled, expired, refused). */
  onControl: (event: ControlEvent) => void;
  /** The trace context of the work under way (W3C traceparent), kept with a new record; undefined when tracing is off. */
  traceparent?: () => string | undefined;
  /** The latest moment the database went back in time (ms), if it ever did: create.rewind.ts. */
  rewoundAt?: () => number | undefined;
  /** The keys of payouts' seals, the one in use first (payout.seal.ts). */
  sealKeys: SealKeys;
  /** The audit chain keys, which check the keyed entries a payout's trail records (payout.trail.ts). */
  entryKeys: readonly EntryKey[];
  /** The audit trail, read before a payout decided earlier is sent. */
  records: Pick<RecordsReader, 'auditPage'>;
  /** The merchants' beneficiary books: a payout to one is re-checked against it before it is sent. */
  book: BeneficiaryStore;
}

/** The status rules applied to a stored record, with its next check withDueNextOnChange on a status change. */
export function statusChange(ctx: DomainContext, record: ProviderRecord, source: EventSource, deliveryId?: string) {
  return (current: Disbursement): Disbursement | undefined =>
    applyProviderAnswer(current, { record, source, deliveryId }, ctx.now(), ctx.policy);
}

/** The audit entry of a change the provider's word made: a callback, or a status check. */
export function auditedAs(source: EventSource, detail?: string): AuditRule {
  return whenVisible(source === 'CALLBACK' ? AuditAction.CALLBACK : AuditAction.STATUS_CHECKED, detail);
}
