import { dailyLimitRefusal, DayHeld } from '../../src/disbursements/daily-limit.refusal';
import { LimitRefusal, ReservationCaps } from '../../src/disbursements/payout.controls';

const both: ReservationCaps = { dailyMinor: 10_000, userMinor: 4_000 };

describe('the daily limits a reservation must fit under', () => {
  it.each<[string, ReservationCaps, DayHeld, number, LimitRefusal | undefined]>([
    ['no caps: anything fits', {}, { merchant: 1e12, actor: 1e12 }, 1e9, undefined],
    ['an empty day under both', both, { merchant: 0, actor: 0 }, 4_000, undefined],
    ['exactly the merchant cap fits', both, { merchant: 9_000, actor: 0 }, 1_000, undefined],
    ['exactly the actor cap fits', both, { merchant: 0, actor: 3_999 }, 1, undefined],
    [
      'one cent over the merchant cap',
      both,
      { merchant: 9_000, actor: 0 },
      1_001,
      { limit: 'dailyLimit', remainingMinor: 1_000 },
    ],
    [
      'one cent over the actor cap',
      both,
      { merchant: 0, actor: 3_000 },
      1_001,
      { limit: 'userDailyLimit', remainingMinor: 1_000 },
    ],
    [
      'over both: the merchant limit is named',
      both,
      { merchant: 9_500, actor: 3_500 },
      1_000,
      { limit: 'dailyLimit', remainingMinor: 500 },
    ],
    [
      'held past the cap (lowered since): nothing remains, never less',
      both,
      { merchant: 12_000, actor: 0 },
      1,
      { limit: 'dailyLimit', remainingMinor: 0 },
    ],
    [
      'only the actor capped',
      { userMinor: 500 },
      { merchant: 1e9, actor: 400 },
      101,
      { limit: 'userDailyLimit', remainingMinor: 100 },
    ],
    [
      'only the merchant capped, the actor far over nothing',
      { dailyMinor: 500 },
      { merchant: 0, actor: 1e9 },
      500,
      undefined,
    ],
    [
      'a zero cap refuses any amount',
      { dailyMinor: 0 },
      { merchant: 0, actor: 0 },
      1,
      { limit: 'dailyLimit', remainingMinor: 0 },
    ],
  ])('%s', (_, caps, held, minor, refusal) => {
    expect(dailyLimitRefusal(caps, held, minor)).toEqual(refusal);
  });
});
