import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { SCOPES } from '../../auth/client.auth';
import { badInput, GatewayError, outcomeUnknown } from '../../disbursements/disbursement.errors';
import { DisbursementResult } from './disbursement-result.type';
import { Disbursement, DisbursementApproval } from './disbursement.type';
import { toView } from './disbursement.view';
import { GatewayContext } from '../gateway.context';
import { PayoutAllowance } from './payout-allowance.type';

const MAX_APPROVALS = 100;
const MAX_REASON = 500;

/** Approve, reject and cancel payouts the payout controls hold, and what the caller may still send. */
@Resolver(() => DisbursementApproval)
export class DisbursementApprovalResolver {
  @FieldResolver(() => Boolean, {
    description: 'Whether you asked for this payout: you can never approve it yourself.',
  })
  requestedByYou(@Root() approval: DisbursementApproval, @Ctx() ctx: GatewayContext): boolean {
    return approval.requesterIds.includes(ctx.actor.id);
  }

  @Mutation(() => Disbursement, {
    description:
      'Approves a payout awaiting approval (scope payouts:approve) and sends it, at most once. Not by its requester (FORBIDDEN). Approving an approved payout returns it; one rejected, cancelled or expired is INVALID_STATE.',
  })
  async approveDisbursement(
    @Arg('referenceId', () => ID) referenceId: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Disbursement> {
    return toView(await ctx.service.approve(ctx.merchant, referenceId, ctx.actor));
  }

  @Mutation(() => Disbursement, {
    description:
      'Rejects a payout awaiting approval (scope payouts:approve): CANCELLED, never sent. INVALID_STATE when it no longer awaits approval.',
  })
  async rejectDisbursement(
    @Arg('referenceId', () => ID) referenceId: string,
    @Arg('reason', () => String, { nullable: true }) reason: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ): Promise<Disbursement> {
    if (reason && reason.length > MAX_REASON)
      throw badInput(`reason may hold at most ${MAX_REASON} characters`, ['reason']);
    return toView(await ctx.service.reject(ctx.merchant, referenceId, ctx.actor, reason ?? undefined));
  }

  @Mutation(() => Disbursement, {
    description:
      'Withdraws a payout before it is sent: a SCHEDULED one by anyone of the merchant (scope payouts:write), until its time; one awaiting approval by its requester (payouts:write) or an approver (payouts:approve). CANCELLED, never sent.',
  })
  async cancelDisbursement(
    @Arg('referenceId', () => ID) referenceId: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Disbursement> {
    return toView(await ctx.service.cancel(ctx.merchant, referenceId, ctx.actor, ctx.scopes.has(SCOPES.approve)));
  }

  @Mutation(() => [DisbursementResult], {
    description: `Approves up to ${MAX_APPROVALS} payouts, in order: one result per referenceId, its record or the error approveDisbursement would have raised.`,
  })
  async approveDisbursements(
    @Arg('referenceIds', () => [ID]) referenceIds: string[],
    @Ctx() ctx: GatewayContext,
  ): Promise<DisbursementResult[]> {
    if (referenceIds.length > MAX_APPROVALS)
      throw badInput(`referenceIds may hold at most ${MAX_APPROVALS} ids`, ['referenceIds']);
    const results: DisbursementResult[] = [];
    for (const referenceId of referenceIds) {
      try {
        results.push({
          referenceId,
          disbursement: toView(await ctx.service.approve(ctx.merchant, referenceId, ctx.actor)),
        });
      } catch (error) {
        // Not one of approve's own answers: it may have been sent, so the only safe word is "unknown".
        const { code, message, details } = error instanceof GatewayError ? error : outcomeUnknown(referenceId);
        results.push({ referenceId, error: { code, message, fields: details.fields, retryAfter: details.retryAfter } });
      }
    }
    return results;
  }

  @Query(() => [PayoutAllowance], {
    description:
      'Per currency the payout controls name: the limits, and what is left today for the merchant and for the caller.',
  })
  async payoutAllowance(@Ctx() ctx: GatewayContext): Promise<PayoutAllowance[]> {
    return ctx.service.allowance(ctx.merchant, ctx.actor);
  }
}
