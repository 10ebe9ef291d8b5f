import { canonicalDecimal } from './decimal.parse';
import { Disbursement, Reservation } from './disbursement.model';

/** Amounts per currency (canonical decimal text); a currency without an entry is not limited by that key. */
export type AmountByCurrency = Readonly<Record<string, string>>;

/** A merchant's payout controls (PAYOUT_CONTROLS, or a MERCHANTS_FILE entry's "controls"). */
export interface PayoutControls {
  /** A payout above this waits for a second person's approval. */
  approvalAbove?: AmountByCurrency;
  /** A payout above this is refused. */
  maxAmount?: AmountByCurrency;
  /** The merchant's payouts created in one day may not add up to more. */
  dailyLimit?: AmountByCurrency;
  /** One actor's payouts created in one day may not add up to more. */
  userDailyLimit?: AmountByCurrency;
  /** How long a payout may await approval before it is cancelled. */
  approvalTtlSeconds: number;
  /** A new beneficiary, or a change to its account details, awaits a second person's approval before it can be paid. */
  beneficiaryApproval?: boolean;
  /** A payout to a beneficiary whose account details changed less than this long ago is held for approval. */
  newPayeeHoldSeconds?: number;
}

export const CONTROL_KEYS = ['approvalAbove', 'maxAmount', 'dailyLimit', 'userDailyLimit'] as const;
export type ControlKey = (typeof CONTROL_KEYS)[number];
export type DailyLimitKey = 'dailyLimit' | 'userDailyLimit';
export const DEFAULT_APPROVAL_TTL_SECONDS = 86_400;

/**
 * Who did something: a JWT's subject, or a shared token's name (never the token). `id` tells
 * credentials apart (two issuers may share a subject); `name` is what people see.
 */
export interface Actor {
  id: string;
  name: string;
}

/** A caller with no credential of their own (open access): one actor, who therefore can never approve their own payouts. */
export const ANONYMOUS: Actor = { id: 'anonymous', name: 'anonymous' };

/** One control action, for its log line and metric. */
export interface ControlEvent {
  merchantId: string;
  referenceId: string;
  /** Unset for the gateway's own step (expiry). */
  actor?: string;
  /** `sealed_elsewhere`: not approved or sent, its seal made under a key this gateway does not seal with (held for an operator). */
  action: 'held' | 'scheduled' | 'approved' | 'rejected' | 'cancelled' | 'expired' | 'refused' | 'sealed_elsewhere';
  /** The limit that refused it, for `refused`. */
  limit?: ControlKey;
}

/** Caps of the daily counters in minor units, for the store's atomic check-and-reserve; unset: not capped. */
export interface ReservationCaps {
  dailyMinor?: number;
  userMinor?: number;
}

/** What the store's check refused: the limit and what is left of it today, in minor units. */
export interface LimitRefusal {
  limit: DailyLimitKey;
  remainingMinor: number;
}

/** `"12.5"` → 1250. Amounts reaching the domain have at most two decimals and fit a JSON number. */
export function toMinor(amount: string): number {
  const canonical = canonicalDecimal(amount) ?? '0';
  const [whole, fraction = ''] = canonical.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

/** 1250 → `"12.5"`; never negative. */
export function fromMinor(minor: number): string {
  const value = Math.max(0, Math.round(minor));
  const whole = Math.floor(value / 100);
  const cents = String(value % 100).padStart(2, '0');
  return canonicalDecimal(`${whole}.${cents}`) ?? '0';
}

/** The calendar day of `at` in an IANA time zone, as YYYY-MM-DD. */
export function dayOf(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Whether the zone is one the runtime knows (checked at startup). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const limitOf = (
  controls: PayoutControls | undefined,
  key: ControlKey,
  currency: string,
): number | undefined => {
  const amount = controls?.[key]?.[currency];
  return amount === undefined ? undefined : toMinor(amount);
};

/** Every currency some control names, sorted. */
export function limitedCurrencies(controls: PayoutControls | undefined): string[] {
  if (!controls) return [];
  return [...new Set(CONTROL_KEYS.flatMap((key) => Object.keys(controls[key] ?? {})))].sort();
}

/** The caps a payout in this currency must fit under; undefined when no daily limit applies to it. */
export function capsFor(controls: PayoutControls | undefined, currency: string): ReservationCaps | undefined {
  const dailyMinor = limitOf(controls, 'dailyLimit', currency);
  const userMinor = limitOf(controls, 'userDailyLimit', currency);
  if (dailyMinor === undefined && userMinor === undefined) return undefined;
  return { dailyMinor, userMinor };
}

/** A reservation that ends: the amount goes back once the payout ends FAILED, CANCELLED or EXPIRED (never sent). */
export function endsReservation(record: Disbursement): boolean {
  return (
    record.reservation !== undefined &&
    !record.reservation.released &&
    (record.status === 'FAILED' || record.status === 'CANCELLED' || record.status === 'EXPIRED')
  );
}

/**
 * The record as a store writes it: when this write ends its reservation, the reservation is marked
 * released and returned, so the store gives the amount back in the same atomic step.
 */
export function releasing(next: Disbursement): { record: Disbursement; release?: Reservation } {
  if (!endsReservation(next) || !next.reservation) return { record: next };
  return { record: { ...next, reservation: { ...next.reservation, released: true } }, release: next.reservation };
}

/** What removing a record gives back: its reservation, unless already released. */
export function releasedByRemoval(current: Disbursement): Reservation | undefined {
  return current.reservation && !current.reservation.released ? current.reservation : undefined;
}
