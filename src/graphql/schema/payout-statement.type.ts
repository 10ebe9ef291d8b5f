import { Field, Int, ObjectType } from 'type-graphql';
import { DecimalScalar } from './decimal.scalar';
import { DisbursementStatus } from './disbursement.enums';

@ObjectType({ description: 'The payouts of one currency and status in a statement.' })
export class PayoutStatementLine {
  @Field(() => String)
  currency!: string;

  @Field(() => DisbursementStatus)
  status!: DisbursementStatus;

  @Field(() => Int)
  count!: number;

  @Field(() => DecimalScalar, { description: 'Their exact sum, two decimal places.' })
  amount!: string;
}

@ObjectType({ description: 'Your payouts created in a window (`from` included, `to` not), counted and summed.' })
export class PayoutStatement {
  @Field(() => Date)
  from!: Date;

  @Field(() => Date)
  to!: Date;

  @Field(() => [PayoutStatementLine], { description: 'By currency, then status.' })
  lines!: PayoutStatementLine[];
}
