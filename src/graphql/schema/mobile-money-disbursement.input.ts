import { Field, InputType } from 'type-graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { DecimalScalar } from './decimal.scalar';

@InputType({ description: 'A payout to a mobile money account (provider spec 2.2).' })
export class MobileMoneyDisbursementInput {
  @Field(() => String, {
    description:
      'Your unique id for this payout, 1-64 printable characters. Retrying with the same id never pays twice.',
  })
  referenceId!: string;

  @Field(() => DecimalScalar, { description: 'Positive, at most 2 decimal places.' })
  amount!: string;

  @Field(() => String, { description: 'The mobile money number: 12 digits starting with 260, e.g. 260971234567.' })
  accountNumber!: string;

  @Field(() => String, { description: 'Three capital letters, e.g. ZMW.' })
  currency!: string;

  @Field(() => String, { nullable: true })
  narration?: string;

  @Field(() => GraphQLDateTimeISO, {
    nullable: true,
    description:
      'When to send it: later than now, it is stored SCHEDULED and sent once at that time (cancellable until then); at most SCHEDULE_MAX_AHEAD_DAYS ahead, not in the past. Absent: sent at once.',
  })
  sendAt?: Date;
}
