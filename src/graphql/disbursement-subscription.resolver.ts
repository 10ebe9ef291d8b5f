import { Arg, ID, Resolver, Root, Subscription } from 'type-graphql';
import { Disbursement as Record } from '../disbursements/disbursement.model';
import { Disbursement } from './disbursement.type';
import { toView } from './disbursement.view';
import { GatewayContext } from './gateway.context';

@Resolver(() => Disbursement)
export class DisbursementSubscriptionResolver {
  @Subscription(() => Disbursement, {
    description: 'One payout of yours: its current state first (when known), then every change; completes after a final status.',
    subscribe: ({ args, context }: { args: { referenceId: string }; context: GatewayContext }) =>
      context.service.watch(context.merchant, args.referenceId),
  })
  disbursementUpdated(@Root() record: Record, @Arg('referenceId', () => ID) _referenceId: string): Disbursement {
    return toView(record);
  }

  @Subscription(() => Disbursement, {
    description: 'Every change of any of your payouts, as it happens.',
    subscribe: ({ context }: { context: GatewayContext }) => context.service.watchMerchant(context.merchant),
  })
  disbursementUpdates(@Root() record: Record): Disbursement {
    return toView(record);
  }
}
