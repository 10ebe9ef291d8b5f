import { Disbursement, EventSource, ProviderRecord } from './disbursement.model';
import { CheckPolicy, withDueNextOnChange } from './disbursement.checks';
import { applyStatusUpdate } from './disbursement.status';

export interface ProviderAnswer {
  record: ProviderRecord;
  source: EventSource;
  /** A verified callback's `webhook-id`, so a redelivery changes nothing. */
  deliveryId?: string;
}

/**
 * The provider's word applied to a stored record: the status rules, then the next check from the
 * new state. Undefined when it changes nothing. `settles`: the answer ends a create in flight (the
 * claim stops "sending" even when the status stays), as the create's own answer and a
 * reconciliation do.
 */
export function applyProviderAnswer(
  current: Disbursement,
  answer: ProviderAnswer,
  now: Date,
  policy: CheckPolicy,
  settles = false,
): Disbursement | undefined {
  const next = applyStatusUpdate(current, { ...answer, at: now.toISOString() });
  if (!settles) return next && withDueNextOnChange(current, next, now, policy);
  if (!next && !current.sending) return undefined;
  return withDueNextOnChange(current, { ...(next ?? current), sending: false }, now, policy);
}
