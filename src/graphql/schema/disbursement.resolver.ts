import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { badInput } from '../../disbursements/disbursement.errors';
import { MAX_REFERENCE_IDS } from '../../disbursements/disbursement.ports';
import { BankDisbursementInput } from './bank-disbursement.input';
import { Disbursement } from './disbursement.type';
import { InputValidationOptions, validateBank, validateMobileMoney } from './disbursement.validation';
import { toView } from './disbursement.view';
import { GatewayContext } from '../gateway.context';
import { MobileMoneyDisbursementInput } from './mobile-money-disbursement.input';

/** One of the caller's payouts by referenceId, or null: disbursement(referenceId) and the subgraph's `_entities`. */
export async function disbursementOf(ctx: GatewayContext, referenceId: string): Promise<Disbursement | null> {
  const record = await ctx.loader.load(referenceId);
  return record ? toView(record) : null;
}

@Resolver(() => Disbursement)
export class DisbursementResolver {
  constructor(private readonly inputValidation: InputValidationOptions) {}

  @Query(() => Disbursement, {
    nullable: true,
    description:
      'A payout of yours by referenceId; null when you have none by that id. refresh: ask the provider for its current state first.',
  })
  async disbursement(
    @Arg('referenceId', () => ID) referenceId: string,
    @Arg('refresh', () => Boolean, { nullable: true, defaultValue: false }) refresh: boolean | null,
    @Ctx() ctx: GatewayContext,
  ): Promise<Disbursement | null> {
    if (!refresh) return disbursementOf(ctx, referenceId);
    const record = await ctx.service.refresh(ctx.merchant, referenceId);
    return record ? toView(record) : null;
  }

  @Query(() => [Disbursement], {
    nullable: 'items',
    description: `Up to ${MAX_REFERENCE_IDS} payouts in one store read, in the order asked; null for unknown ids.`,
  })
  async disbursements(
    @Arg('referenceIds', () => [ID]) referenceIds: string[],
    @Ctx() ctx: GatewayContext,
  ): Promise<(Disbursement | null)[]> {
    if (referenceIds.length > MAX_REFERENCE_IDS) {
      throw badInput(`referenceIds may hold at most ${MAX_REFERENCE_IDS} ids`, ['referenceIds']);
    }
    const records = await ctx.loader.loadMany(referenceIds);
    return records.map((r) => {
      if (r instanceof Error) throw r;
      return r ? toView(r) : null;
    });
  }

  @Mutation(() => Disbursement, {
    description: 'Pays out to a bank account. Safe to retry with the same input: it is sent at most once.',
  })
  async createBankDisbursement(
    @Arg('input', () => BankDisbursementInput) input: BankDisbursementInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<Disbursement> {
    return toView(
      await ctx.service.create(ctx.merchant, validateBank(input, this.inputValidation), ctx.requestId, ctx.actor),
    );
  }

  @Mutation(() => Disbursement, {
    description: 'Pays out to a mobile money account. Safe to retry with the same input: it is sent at most once.',
  })
  async createMobileMoneyDisbursement(
    @Arg('input', () => MobileMoneyDisbursementInput) input: MobileMoneyDisbursementInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<Disbursement> {
    return toView(await ctx.service.create(ctx.merchant, validateMobileMoney(input), ctx.requestId, ctx.actor));
  }
}
