import { Ctx, Query, Resolver } from 'type-graphql';
import { GatewayContext } from '../gateway.context';
import { WalletBalance } from './wallet-balance.type';

@Resolver(() => WalletBalance)
export class WalletResolver {
  @Query(() => WalletBalance, {
    description:
      "Your wallet's balance at the provider, to show before paying out; the same figure is served for a few seconds.",
  })
  walletBalance(@Ctx() ctx: GatewayContext): Promise<WalletBalance> {
    return ctx.service.walletBalance(ctx.merchant);
  }
}
