import { Arg, ID, Resolver, Root, Subscription } from 'type-graphql';
import { Change } from '../../disbursements/change-log.feed';
// The domain's record, next to the GraphQL type of the same name.
import * as domain from '../../disbursements/disbursement.model';
import { DisbursementChange } from './disbursement-change.type';
import { Disbursement } from './disbursement.type';
import { toView } from './disbursement.view';
import { GatewayContext } from '../gateway.context';

@Resolver(() => Disbursement)
export class DisbursementSubscriptionResolver {
  @Subscription(() => Disbursement, {
    description:
      'One payout of yours: its current state first (when known), then every change; completes after a final status.',
    subscribe: ({ args, context }: { args: { referenceId: string }; context: GatewayContext }) =>
      context.service.watch(context.merchant, args.referenceId, context.onListening),
  })
  disbursementUpdated(
    @Root() record: domain.Disbursement,
    @Arg('referenceId', () => ID) _referenceId: string,
  ): Disbursement {
    return toView(record);
  }

  @Subscription(() => Disbursement, {
    description: 'Every change of any of your payouts, as it happens.',
    subscribe: ({ context }: { context: GatewayContext }) =>
      context.service.watchMerchant(context.merchant, context.onListening),
  })
  disbursementUpdates(@Root() record: domain.Disbursement): Disbursement {
    return toView(record);
  }

  @Subscription(() => DisbursementChange, {
    description:
      'Every change of any of your payouts, in the order they were stored. With `after` (a cursor from an earlier change), first every change after it, then live ones, with no gap or repeat. CURSOR_EXPIRED: the changes after that cursor are no longer kept; refetch disbursementHistory and subscribe without `after`.',
    // Async: a refused cursor fails the subscribe itself, so the client gets its error before any event.
    subscribe: ({ args, context }: { args: { after?: string | null }; context: GatewayContext }) =>
      context.service.changes(context.merchant, args.after, context.onListening),
  })
  disbursementEvents(
    @Root() change: Change,
    @Arg('after', () => String, { nullable: true, description: 'Resume after this cursor.' }) _after?: string,
  ): DisbursementChange {
    return { cursor: change.cursor, disbursement: toView(change.record) };
  }
}
