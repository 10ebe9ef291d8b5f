import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { BatchItem, BatchResult, MAX_BATCH_ITEMS } from '../../disbursements/disbursement.batch';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { DisbursementRequest } from '../../disbursements/disbursement.model';
import { BankDisbursementInput } from './bank-disbursement.input';
import { DisbursementResult } from './disbursement-result.type';
import {
  beneficiaryRequest,
  InputValidationOptions,
  validateBank,
  validateMobileMoney,
} from './disbursement.validation';
import { BeneficiaryPayoutInput } from './beneficiary-payout.input';
import { toView } from './disbursement.view';
import { GatewayContext } from '../gateway.context';
import { MobileMoneyDisbursementInput } from './mobile-money-disbursement.input';

/** Validates every input on its own, so one bad item is that item's error and not the batch's. */
function itemsOf<T extends { referenceId: string }>(
  inputs: T[],
  validate: (input: T, path: string) => DisbursementRequest,
): BatchItem[] {
  return inputs.map((input, index) => {
    try {
      return { referenceId: input.referenceId, request: validate(input, `inputs.${index}`) };
    } catch (error) {
      if (error instanceof GatewayError) return { referenceId: input.referenceId, invalid: error };
      throw error;
    }
  });
}

/** Errors of the single create name `input.x`; in a batch the same field is `inputs.<index>.x`. */
function toResult(result: BatchResult, index: number): DisbursementResult {
  if ('record' in result) return { referenceId: result.referenceId, disbursement: toView(result.record) };
  const { code, message, details } = result.error;
  const fields = details.fields?.map((f) =>
    f.startsWith('input.') ? `inputs.${index}.${f.slice('input.'.length)}` : f,
  );
  return { referenceId: result.referenceId, error: { code, message, fields, retryAfter: details.retryAfter } };
}

const ABOUT = `Up to ${MAX_BATCH_ITEMS} payouts, one result per input in the same order. Each is sent at most once, exactly as by the single create, so retrying the same batch is safe: it returns the same results and sends only what was never sent. A repeated referenceId refuses the whole batch.`;

@Resolver(() => DisbursementResult)
export class DisbursementBatchResolver {
  constructor(private readonly inputValidation: InputValidationOptions) {}

  @Mutation(() => [DisbursementResult], { description: `Pays out to mobile money accounts. ${ABOUT}` })
  async createMobileMoneyDisbursements(
    @Arg('inputs', () => [MobileMoneyDisbursementInput]) inputs: MobileMoneyDisbursementInput[],
    @Ctx() ctx: GatewayContext,
  ): Promise<DisbursementResult[]> {
    const results = await ctx.service.createMany(
      ctx.merchant,
      itemsOf(inputs, (input, path) => validateMobileMoney(input, path)),
      ctx.requestId,
      ctx.actor,
    );
    return results.map(toResult);
  }

  @Mutation(() => [DisbursementResult], {
    description: `Pays your beneficiaries, each as payBeneficiary would; an item's error names its own fields (inputs.3.beneficiaryId). ${ABOUT}`,
  })
  async payBeneficiaries(
    @Arg('inputs', () => [BeneficiaryPayoutInput]) inputs: BeneficiaryPayoutInput[],
    @Ctx() ctx: GatewayContext,
  ): Promise<DisbursementResult[]> {
    const items: BatchItem[] = inputs.map((input) => ({
      referenceId: input.referenceId,
      payment: {
        beneficiaryId: input.beneficiaryId,
        referenceId: input.referenceId,
        build: (details) => beneficiaryRequest(input, details, this.inputValidation),
      },
    }));
    return (await ctx.service.createMany(ctx.merchant, items, ctx.requestId, ctx.actor)).map(toResult);
  }

  @Mutation(() => [DisbursementResult], { description: `Pays out to bank accounts. ${ABOUT}` })
  async createBankDisbursements(
    @Arg('inputs', () => [BankDisbursementInput]) inputs: BankDisbursementInput[],
    @Ctx() ctx: GatewayContext,
  ): Promise<DisbursementResult[]> {
    const results = await ctx.service.createMany(
      ctx.merchant,
      itemsOf(inputs, (input, path) => validateBank(input, this.inputValidation, path)),
      ctx.requestId,
      ctx.actor,
    );
    return results.map(toResult);
  }
}
