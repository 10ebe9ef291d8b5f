import { Field, ObjectType } from 'type-graphql';
import { Disbursement } from './disbursement.type';

@ObjectType({ description: 'One change of one of your payouts, with the cursor to resume after it.' })
export class DisbursementChange {
  @Field(() => String, {
    description:
      'Pass it as `after` to disbursementEvents to get every change after this one (opaque; kept EVENT_RETENTION_SECONDS).',
  })
  cursor!: string;

  @Field(() => Disbursement, { description: 'The payout as this change left it.' })
  disbursement!: Disbursement;
}
