import { LimitRefusal, ReservationCaps } from './payout.controls';

/** What a day already holds, in minor units: the merchant's total and the requesting actor's own. */
export interface DayHeld {
  merchant: number;
  actor: number;
}

/**
 * Whether one more payout of `minor` fits under the day's caps, given what is already held; the
 * merchant's limit is checked first, so a payout over both is refused for the merchant's. A store
 * calls this between reading the counters and writing the hold, inside the step that makes both
 * atomic; the answer depends on nothing else, so every engine refuses alike.
 */
export function dailyLimitRefusal(caps: ReservationCaps, held: DayHeld, minor: number): LimitRefusal | undefined {
  if (caps.dailyMinor !== undefined && held.merchant + minor > caps.dailyMinor)
    return { limit: 'dailyLimit', remainingMinor: Math.max(0, caps.dailyMinor - held.merchant) };
  if (caps.userMinor !== undefined && held.actor + minor > caps.userMinor)
    return { limit: 'userDailyLimit', remainingMinor: Math.max(0, caps.userMinor - held.actor) };
  return undefined;
}
