import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { BeneficiaryStatus } from '../../disbursements/beneficiary.model';
import { DisbursementChannel } from './disbursement.enums';
import { PageInfo } from './disbursement-connection.type';

registerEnumType(BeneficiaryStatus, {
  name: 'BeneficiaryStatus',
  description:
    'AWAITING_APPROVAL: new, or its account details changed, under beneficiaryApproval; not payable until another person approves. ARCHIVED: never payable again; its payouts stay.',
});

@Directive('@key(fields: "id")')
@ObjectType({
  description:
    "A saved recipient. Its account details are the payout inputs' fields; accountNumber is masked to its last four digits except in beneficiary(id).",
})
export class Beneficiary {
  @Field(() => ID)
  id!: string;

  @Field(() => String, {
    description: 'How you know it; under beneficiaryApproval a new name awaits approval as new account details do.',
  })
  name!: string;

  @Field(() => DisbursementChannel)
  channel!: DisbursementChannel;

  @Field(() => String, { description: 'In full only in beneficiary(id); elsewhere ****1234.' })
  accountNumber!: string;

  @Field(() => String, { nullable: true })
  swiftCode?: string;

  @Field(() => String, { nullable: true })
  firstName?: string;

  @Field(() => String, { nullable: true })
  lastName?: string;

  @Field(() => String, { nullable: true })
  accountHolderName?: string;

  @Field(() => String, { nullable: true })
  phoneNumber?: string;

  @Field(() => String, { nullable: true })
  email?: string;

  @Field(() => BeneficiaryStatus)
  status!: BeneficiaryStatus;

  @Field(() => String)
  createdBy!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Who approved its current account details, when someone had to.',
  })
  approvedBy?: string;

  @Field(() => GraphQLDateTimeISO, { description: 'When its account details last changed (or were first set).' })
  changedAt!: Date;

  @Field(() => GraphQLDateTimeISO, {
    description:
      'From when a payout to it is no longer held for approval as to a new payee (changedAt + newPayeeHoldSeconds).',
  })
  payableFrom!: Date;

  @Field(() => GraphQLDateTimeISO)
  createdAt!: Date;

  @Field(() => GraphQLDateTimeISO)
  updatedAt!: Date;

  @Field(() => String, {
    description:
      'A digest of its name and account details: pass it to approveBeneficiary as expectedDetails to approve exactly what you saw.',
  })
  detailsFingerprint!: string;

  @Field(() => [String], {
    nullable: true,
    description:
      "Only in archiveBeneficiary's answer: the referenceIds of its payouts awaiting approval or scheduled that the archive cancelled (CANCELLED, never sent).",
  })
  cancelledPayouts?: string[];

  /** Who set its current name and account details, never shown: what requestedByYou compares with the caller. */
  requesterId!: string;
}

@ObjectType()
export class BeneficiaryEdge {
  @Field(() => String, { description: 'Opaque; pass it as `after` for the beneficiaries after this one.' })
  cursor!: string;

  @Field(() => Beneficiary)
  node!: Beneficiary;
}

@ObjectType({ description: 'A page of your beneficiaries, oldest first.' })
export class BeneficiaryConnection {
  @Field(() => [BeneficiaryEdge])
  edges!: BeneficiaryEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int, { description: 'All your beneficiaries matching the filter, exactly.' })
  totalCount!: number;
}

@InputType({ description: 'Conditions that all hold for every beneficiary listed.' })
export class BeneficiaryFilter {
  @Field(() => BeneficiaryStatus, { nullable: true })
  status?: BeneficiaryStatus;

  @Field(() => DisbursementChannel, { nullable: true })
  channel?: DisbursementChannel;

  @Field(() => String, {
    nullable: true,
    description: 'Part of the name (any case) or of the account number.',
  })
  search?: string;
}

@InputType({
  description:
    "A beneficiary's name and account details, under the payout inputs' own field names and rules: BANK takes every bank field, MOBILE_MONEY the accountNumber alone.",
})
export class BeneficiaryInput {
  @Field(() => String, { description: 'How you know it, 1-100 characters.' })
  name!: string;

  @Field(() => DisbursementChannel)
  channel!: DisbursementChannel;

  @Field(() => String)
  accountNumber!: string;

  @Field(() => String, { nullable: true })
  swiftCode?: string;

  @Field(() => String, { nullable: true })
  firstName?: string;

  @Field(() => String, { nullable: true })
  lastName?: string;

  @Field(() => String, { nullable: true })
  accountHolderName?: string;

  @Field(() => String, { nullable: true })
  phoneNumber?: string;

  @Field(() => String, { nullable: true })
  email?: string;
}
