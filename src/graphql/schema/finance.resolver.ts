import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import {
  Discrepancy as DiscrepancyModel,
  ReconciliationRun as RunModel,
} from '../../disbursements/reconciliation.model';
import { GatewayContext } from '../gateway.context';
import { PayoutStatement } from './payout-statement.type';
import { ReconciliationRun } from './reconciliation.type';

function runView(run: RunModel, discrepancies: DiscrepancyModel[]): ReconciliationRun {
  return {
    id: run.id,
    from: new Date(run.from),
    to: new Date(run.to),
    state: run.state,
    checked: run.checked,
    total: run.total,
    discrepancies,
    balance: run.balance,
    startedAt: new Date(run.startedAt),
    finishedAt: run.finishedAt === undefined ? undefined : new Date(run.finishedAt),
    failure: run.failure,
  };
}

/** What a finance team reads and runs: statements (payouts:read) and reconciliation runs (audit:read). */
@Resolver()
export class FinanceResolver {
  @Query(() => PayoutStatement, {
    description:
      'Your payouts created in a window (`from` included, `to` not): counts and exact sums per currency and status.',
  })
  async payoutStatement(
    @Arg('from', () => Date) from: Date,
    @Arg('to', () => Date) to: Date,
    @Ctx() ctx: GatewayContext,
  ): Promise<PayoutStatement> {
    return { from, to, lines: await ctx.service.statement(ctx.merchant, { from, to }) };
  }

  @Mutation(() => ReconciliationRun, {
    description:
      'Starts reconciling your payouts created in a window against the provider; one run at a time. Needs the scope audit:read.',
  })
  async startReconciliation(
    @Arg('from', () => Date) from: Date,
    @Arg('to', () => Date) to: Date,
    @Ctx() ctx: GatewayContext,
  ): Promise<ReconciliationRun> {
    return runView(await ctx.service.startReconciliation(ctx.merchant, { from, to }), []);
  }

  @Query(() => ReconciliationRun, { nullable: true, description: 'A run of yours. Needs the scope audit:read.' })
  async reconciliationRun(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<ReconciliationRun | undefined> {
    const found = await ctx.service.reconciliationRun(ctx.merchant, id);
    return found && runView(found.run, found.discrepancies);
  }
}
