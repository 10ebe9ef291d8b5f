import { Field, ID, InputType } from 'type-graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { DecimalScalar } from './decimal.scalar';

@InputType({
  description:
    "A payout to one of your beneficiaries: the same payout the direct mutations make, with the beneficiary's account details as they are now.",
})
export class BeneficiaryPayoutInput {
  @Field(() => String, {
    description:
      'Your unique id for this payout, 1-64 printable characters. Retrying with the same id never pays twice.',
  })
  referenceId!: string;

  @Field(() => ID)
  beneficiaryId!: string;

  @Field(() => DecimalScalar, { description: 'Positive, at most 2 decimal places.' })
  amount!: string;

  @Field(() => String, { description: 'Three capital letters, e.g. ZMW.' })
  currency!: string;

  @Field(() => String, { nullable: true, description: 'Required for a bank beneficiary, as on a bank payout.' })
  narration?: string;

  @Field(() => GraphQLDateTimeISO, {
    nullable: true,
    description: 'When to send it, as on the payout inputs: later than now, it is stored SCHEDULED.',
  })
  sendAt?: Date;

  @Field(() => String, {
    nullable: true,
    description: 'Bank beneficiaries only, as on a bank payout: the gateway POSTs the final record there, signed.',
  })
  callbackUrl?: string;
}
