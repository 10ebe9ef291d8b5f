import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { DisbursementChannel, DisbursementStatus } from './disbursement.enums';
import { Disbursement } from './disbursement.type';

@ObjectType()
export class DisbursementEdge {
  @Field(() => String, { description: 'Opaque; pass it as `after` to get the payouts older than this one.' })
  cursor!: string;

  @Field(() => Disbursement)
  node!: Disbursement;
}

@ObjectType()
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, {
    nullable: true,
    description:
      'Where the next page starts: the last edge, or (when a filter looked at its maximum of entries before filling the page) the last payout looked at.',
  })
  endCursor?: string;
}

@ObjectType({ description: 'A page of your payouts, newest first.' })
export class DisbursementConnection {
  @Field(() => [DisbursementEdge])
  edges!: DisbursementEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int, {
    nullable: true,
    description: 'All your payouts matching the filter (every filter is counted), however many pages they take.',
  })
  totalCount?: number;
}

@InputType({ description: 'Conditions that all hold for every payout listed.' })
export class DisbursementFilter {
  @Field(() => [DisbursementStatus], { nullable: true, description: 'Any of these statuses.' })
  status?: DisbursementStatus[];

  @Field(() => DisbursementChannel, { nullable: true })
  channel?: DisbursementChannel;

  @Field(() => Date, { nullable: true, description: 'Recorded by the gateway at or after this time.' })
  createdFrom?: Date;

  @Field(() => Date, { nullable: true, description: 'Recorded by the gateway at or before this time.' })
  createdTo?: Date;

  @Field(() => String, { nullable: true })
  referenceIdPrefix?: string;
}
