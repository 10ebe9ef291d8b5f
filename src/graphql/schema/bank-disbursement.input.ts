import { Field, InputType } from 'type-graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { DecimalScalar } from './decimal.scalar';

@InputType({ description: 'A payout to a bank account (provider spec 2.1).' })
export class BankDisbursementInput {
  @Field(() => String, {
    description:
      'Your unique id for this payout, 1-64 printable characters. Retrying with the same id never pays twice.',
  })
  referenceId!: string;

  @Field(() => DecimalScalar, { description: 'Positive, at most 2 decimal places.' })
  amount!: string;

  @Field(() => String, { description: 'Three capital letters, e.g. ZMW.' })
  currency!: string;

  @Field(() => String)
  narration!: string;

  @Field(() => String, { description: 'The bank account number: 4 to 34 digits, e.g. 0012345678.' })
  accountNumber!: string;

  @Field(() => String, { description: '8 or 11 characters.' })
  swiftCode!: string;

  @Field(() => String)
  firstName!: string;

  @Field(() => String)
  lastName!: string;

  @Field(() => String)
  accountHolderName!: string;

  @Field(() => String, { description: 'International digits without separators, 8-15 digits.' })
  phoneNumber!: string;

  @Field(() => String, { nullable: true })
  email?: string;

  @Field(() => String, {
    nullable: true,
    description: 'Your own address: the gateway POSTs the final record there, signed.',
  })
  callbackUrl?: string;

  @Field(() => GraphQLDateTimeISO, {
    nullable: true,
    description:
      'When to send it: later than now, it is stored SCHEDULED and sent once at that time (cancellable until then); at most SCHEDULE_MAX_AHEAD_DAYS ahead, not in the past. Absent: sent at once.',
  })
  sendAt?: Date;
}
