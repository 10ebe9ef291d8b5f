import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { badInput } from '../../disbursements/disbursement.errors';
import { GatewayContext } from '../gateway.context';
import { BeneficiaryPayoutInput } from './beneficiary-payout.input';
import { Beneficiary, BeneficiaryConnection, BeneficiaryFilter, BeneficiaryInput } from './beneficiary.type';
import { toBeneficiaryView } from './beneficiary.view';
import { Disbursement } from './disbursement.type';
import { beneficiaryRequest, InputValidationOptions, validateBeneficiary } from './disbursement.validation';
import { toView } from './disbursement.view';
import { decodeCursor, encodeCursor } from './history.cursor';

const MAX_BOOK_PAGE = 100;

/** One of the caller's beneficiaries by id, its account number in full, or null: beneficiary(id) and `_entities`. */
export async function beneficiaryOf(ctx: GatewayContext, id: string): Promise<Beneficiary | null> {
  const found = await ctx.service.beneficiary(ctx.merchant, id);
  return found ? toBeneficiaryView(found, true) : null;
}

/** The beneficiary book (docs/beneficiaries.md): beneficiaries:read and :write, approving payouts:approve, paying payouts:write. */
@Resolver(() => Beneficiary)
export class BeneficiaryResolver {
  constructor(private readonly inputValidation: InputValidationOptions) {}

  @FieldResolver(() => Boolean, {
    description:
      'Whether you set its current name and account details: while they await approval, you can never approve them yourself.',
  })
  requestedByYou(@Root() beneficiary: Beneficiary, @Ctx() ctx: GatewayContext): boolean {
    return beneficiary.requesterId === ctx.actor.id;
  }

  @Query(() => Beneficiary, {
    nullable: true,
    description: 'One of your beneficiaries, its account number in full; null when you have none by that id.',
  })
  async beneficiary(@Arg('id', () => ID) id: string, @Ctx() ctx: GatewayContext): Promise<Beneficiary | null> {
    return beneficiaryOf(ctx, id);
  }

  @Query(() => BeneficiaryConnection, {
    description: `Your beneficiaries, oldest first, at most ${MAX_BOOK_PAGE} a page, account numbers masked.`,
  })
  async beneficiaries(
    @Arg('first', () => Int, { nullable: true, defaultValue: 20 }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('filter', () => BeneficiaryFilter, { nullable: true }) filter: BeneficiaryFilter | null,
    @Ctx() ctx: GatewayContext,
  ): Promise<BeneficiaryConnection> {
    const limit = first ?? 20;
    if (limit < 1 || limit > MAX_BOOK_PAGE) throw badInput(`first must be 1-${MAX_BOOK_PAGE}`, ['first']);
    const position = after ? decodeCursor(after) : undefined;
    const page = await ctx.service.beneficiaries(ctx.merchant, {
      limit,
      after: position && { at: position.at, id: position.referenceId },
      filter: {
        status: filter?.status ?? undefined,
        channel: filter?.channel ?? undefined,
        search: filter?.search ?? undefined,
      },
    });
    const edges = page.beneficiaries.map((b) => ({
      cursor: encodeCursor({ at: Date.parse(b.createdAt), referenceId: b.id }),
      node: toBeneficiaryView(b, false),
    }));
    return {
      edges,
      pageInfo: { hasNextPage: page.hasMore, endCursor: edges.at(-1)?.cursor },
      totalCount: page.totalCount,
    };
  }

  @Mutation(() => Beneficiary, {
    description:
      "Adds a beneficiary; under beneficiaryApproval it awaits another person's approval. The same account details as an active beneficiary are refused, naming it (extensions.beneficiaryId).",
  })
  async createBeneficiary(
    @Arg('input', () => BeneficiaryInput) input: BeneficiaryInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<Beneficiary> {
    return toBeneficiaryView(
      await ctx.service.createBeneficiary(ctx.merchant, validateBeneficiary(input), ctx.actor),
      true,
    );
  }

  @Mutation(() => Beneficiary, {
    description:
      'Changes its name and account details. New account details await approval again under beneficiaryApproval, and hold its payouts for newPayeeHoldSeconds; a new name alone needs neither. Payouts already made keep their details.',
  })
  async updateBeneficiary(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => BeneficiaryInput) input: BeneficiaryInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<Beneficiary> {
    const draft = validateBeneficiary(input);
    return toBeneficiaryView(await ctx.service.updateBeneficiary(ctx.merchant, id, draft, ctx.actor), true);
  }

  @Mutation(() => Beneficiary, {
    description:
      'Approves its new name or account details; not by the person who set them (FORBIDDEN). expectedDetails is its detailsFingerprint as you saw it: details changed since are STALE_APPROVAL and nothing is approved. Needs payouts:approve.',
  })
  async approveBeneficiary(
    @Arg('id', () => ID) id: string,
    @Arg('expectedDetails', () => String) expectedDetails: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Beneficiary> {
    const approved = await ctx.service.approveBeneficiary(ctx.merchant, id, ctx.actor, expectedDetails);
    return toBeneficiaryView(approved, true);
  }

  @Mutation(() => Beneficiary, {
    description:
      'Archives it: it can never be paid again. Its payouts awaiting approval or scheduled are cancelled, never sent (cancelledPayouts names them); payouts already sent stay.',
  })
  async archiveBeneficiary(@Arg('id', () => ID) id: string, @Ctx() ctx: GatewayContext): Promise<Beneficiary> {
    const { beneficiary, cancelled } = await ctx.service.archiveBeneficiary(ctx.merchant, id, ctx.actor);
    return { ...toBeneficiaryView(beneficiary, true), cancelledPayouts: cancelled };
  }

  @Mutation(() => Disbursement, {
    description:
      "Pays an ACTIVE beneficiary: the same payout createBankDisbursement or createMobileMoneyDisbursement makes (idempotent by referenceId, controls, limits, approvals, audit, sendAt) with the beneficiary's details as they are now, kept on the payout. Needs payouts:write.",
  })
  async payBeneficiary(
    @Arg('input', () => BeneficiaryPayoutInput) input: BeneficiaryPayoutInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<Disbursement> {
    const payment = {
      beneficiaryId: input.beneficiaryId,
      referenceId: input.referenceId,
      build: (details: Parameters<typeof beneficiaryRequest>[1]) =>
        beneficiaryRequest(input, details, this.inputValidation),
    };
    return toView(await ctx.service.payBeneficiary(ctx.merchant, payment, ctx.requestId, ctx.actor));
  }
}
