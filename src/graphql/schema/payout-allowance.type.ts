import { Field, ObjectType } from 'type-graphql';
import { DecimalScalar } from './decimal.scalar';

@ObjectType({
  description:
    'What the caller may send today in one currency under the payout controls, so a form can say so before it is submitted. Null: that control does not limit this currency.',
})
export class PayoutAllowance {
  @Field(() => String)
  currency!: string;

  @Field(() => DecimalScalar, { nullable: true, description: 'The largest single payout.' })
  maxAmount?: string;

  @Field(() => DecimalScalar, {
    nullable: true,
    description: 'A payout above this awaits approval by a second person.',
  })
  approvalAbove?: string;

  @Field(() => DecimalScalar, { nullable: true, description: "What is left of the merchant's daily limit today." })
  dailyRemaining?: string;

  @Field(() => DecimalScalar, { nullable: true, description: "What is left of the caller's own daily limit today." })
  userDailyRemaining?: string;
}
