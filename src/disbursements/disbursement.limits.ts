import { limitExceeded } from './disbursement.errors';
import { DisbursementRequest, Reservation } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import {
  Actor,
  capsFor,
  ControlEvent,
  dayOf,
  fromMinor,
  LimitRefusal,
  limitOf,
  ReservationCaps,
  toMinor,
} from './payout.controls';

/** What the payout controls decide about a new payout before anything is stored or sent. */
export interface CreatePlan {
  /** Above approvalAbove: stored AWAITING_APPROVAL, nothing sent. */
  awaiting: boolean;
  /** Counted against the daily limits of its currency, checked and reserved atomically by the store. */
  reservation?: Reservation;
  caps?: ReservationCaps;
}

/**
 * maxAmount refuses at once (LIMIT_EXCEEDED, nothing stored); approvalAbove holds the payout; the
 * daily limits become a reservation the store checks and takes in one step. No controls: an empty plan.
 */
export function planCreate(
  merchant: Merchant,
  request: DisbursementRequest,
  actor: Actor,
  countsOn: Date,
  timeZone: string,
): CreatePlan {
  const { controls } = merchant;
  if (!controls) return { awaiting: false };
  const minor = toMinor(request.amount);
  const max = limitOf(controls, 'maxAmount', request.currency);
  if (max !== undefined && minor > max)
    throw limitExceeded(request.referenceId, 'maxAmount', fromMinor(max), request.currency);
  const threshold = limitOf(controls, 'approvalAbove', request.currency);
  const awaiting = threshold !== undefined && minor > threshold;
  const caps = capsFor(controls, request.currency);
  if (!caps) return { awaiting };
  return {
    awaiting,
    caps,
    reservation: { day: dayOf(countsOn, timeZone), currency: request.currency, actorId: actor.id, minor },
  };
}

/** The store's refusal as the client sees it. */
export function refusalError(request: DisbursementRequest, refused: LimitRefusal) {
  return limitExceeded(request.referenceId, refused.limit, fromMinor(refused.remainingMinor), request.currency);
}

export function refusalEvent(
  merchant: Merchant,
  request: DisbursementRequest,
  actor: Actor,
  limit: ControlEvent['limit'],
): ControlEvent {
  return { merchantId: merchant.id, referenceId: request.referenceId, actor: actor.name, action: 'refused', limit };
}
