import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { MAX_HISTORY_PAGE } from '../../disbursements/disbursement.history';
import { DisbursementConnection, DisbursementFilter } from './disbursement-connection.type';
import { toView } from './disbursement.view';
import { GatewayContext } from '../gateway.context';
import { decodeCursor, encodeCursor } from './history.cursor';

@Resolver(() => DisbursementConnection)
export class DisbursementHistoryResolver {
  @Query(() => DisbursementConnection, {
    description: `Your payouts, newest first (by when the gateway first recorded each), at most ${MAX_HISTORY_PAGE} a page. Cursors stay valid while new payouts arrive: paging on never skips or repeats one.`,
  })
  async disbursementHistory(
    @Arg('first', () => Int, { nullable: true, defaultValue: 20 }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('filter', () => DisbursementFilter, { nullable: true }) filter: DisbursementFilter | null,
    @Ctx() ctx: GatewayContext,
  ): Promise<DisbursementConnection> {
    const page = await ctx.service.history(ctx.merchant, {
      first: first ?? 20,
      after: after ? decodeCursor(after) : undefined,
      filter: {
        statuses: filter?.status ?? undefined,
        channel: filter?.channel ?? undefined,
        createdFrom: filter?.createdFrom?.getTime(),
        createdTo: filter?.createdTo?.getTime(),
        referenceIdPrefix: filter?.referenceIdPrefix ?? undefined,
      },
    });
    return {
      edges: page.entries.map((entry) => ({ cursor: encodeCursor(entry), node: toView(entry.record) })),
      pageInfo: { hasNextPage: page.hasMore, endCursor: page.endPosition && encodeCursor(page.endPosition) },
      totalCount: page.totalCount,
    };
  }
}
