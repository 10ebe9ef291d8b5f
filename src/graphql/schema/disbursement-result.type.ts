import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Disbursement } from './disbursement.type';

@ObjectType({ description: 'Why one payout of a batch has no record: the error a single create would have raised.' })
export class DisbursementError {
  @Field(() => String, { description: 'One of the error codes of single creates, e.g. BAD_USER_INPUT, RATE_LIMITED.' })
  code!: string;

  @Field(() => String)
  message!: string;

  @Field(() => [String], { nullable: true, description: 'Input paths at fault, e.g. inputs.3.amount.' })
  fields?: string[];

  @Field(() => Int, { nullable: true, description: 'Seconds to wait before retrying.' })
  retryAfter?: number;
}

@ObjectType({
  description: 'The outcome of one payout of a batch, in the order of the inputs: its record or its error.',
})
export class DisbursementResult {
  @Field(() => ID)
  referenceId!: string;

  @Field(() => Disbursement, { nullable: true })
  disbursement?: Disbursement;

  @Field(() => DisbursementError, { nullable: true })
  error?: DisbursementError;
}
