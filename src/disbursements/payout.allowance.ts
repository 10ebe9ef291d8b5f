import { DomainContext } from './disbursement.context';
import { Merchant } from './disbursement.ports';
import { Actor, capsFor, dayOf, fromMinor, limitedCurrencies, limitOf } from './payout.controls';

/** What a caller may still send today in one currency; unset: that control does not limit it. */
export interface Allowance {
  currency: string;
  maxAmount?: string;
  approvalAbove?: string;
  dailyRemaining?: string;
  userDailyRemaining?: string;
}

/** Per currency some control names: its limits and what is left of today's, for the merchant and for this caller. */
export async function payoutAllowance(ctx: DomainContext, merchant: Merchant, actor: Actor): Promise<Allowance[]> {
  const { controls } = merchant;
  const day = dayOf(ctx.now(), ctx.dayTimeZone);
  return Promise.all(
    limitedCurrencies(controls).map(async (currency) => {
      const max = limitOf(controls, 'maxAmount', currency);
      const threshold = limitOf(controls, 'approvalAbove', currency);
      const allowance: Allowance = {
        currency,
        maxAmount: max === undefined ? undefined : fromMinor(max),
        approvalAbove: threshold === undefined ? undefined : fromMinor(threshold),
      };
      const caps = capsFor(controls, currency);
      if (!caps) return allowance;
      const held = await ctx.store.reserved(merchant.id, day, currency, actor.id);
      if (caps.dailyMinor !== undefined) allowance.dailyRemaining = fromMinor(caps.dailyMinor - held.merchant);
      if (caps.userMinor !== undefined) allowance.userDailyRemaining = fromMinor(caps.userMinor - held.actor);
      return allowance;
    }),
  );
}
