import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';
import { DecimalScalar } from './decimal.scalar';
import {
  ApprovalDecision,
  DisbursementChannel,
  DisbursementStatus,
  EventSource,
  PaymentType,
} from './disbursement.enums';

@ObjectType({ description: 'A status the payout went through.' })
export class DisbursementEvent {
  @Field(() => DisbursementStatus)
  status!: DisbursementStatus;

  @Field(() => String, { nullable: true, description: 'The status exactly as the provider wrote it.' })
  providerStatus?: string;

  @Field(() => String, { nullable: true })
  message?: string;

  @Field(() => EventSource)
  source!: EventSource;

  @Field(() => Date)
  at!: Date;

  @Field(() => String, {
    nullable: true,
    description:
      "Who did it (a JWT's sub, or a shared token's name); null for the provider's and the gateway's own steps.",
  })
  actor?: string;

  @Field(() => Int, {
    description:
      'How many times in a row this same step happened: 1 once; a retry refused the same way again is counted here, not listed again.',
  })
  repeated!: number;

  @Field(() => Date, {
    nullable: true,
    description: 'When it last happened, when more than once; `at` is the first time.',
  })
  lastAt?: Date;
}

@ObjectType({ description: 'A payout held by the payout controls until a second person decides.' })
export class DisbursementApproval {
  @Field(() => String, { description: 'Who asked for the payout; they can never approve it themselves.' })
  requestedBy!: string;

  @Field(() => String, { nullable: true })
  decidedBy?: string;

  @Field(() => ApprovalDecision, { nullable: true, description: 'Null while it awaits approval.' })
  decision?: ApprovalDecision;

  @Field(() => Date, { nullable: true })
  decidedAt?: Date;

  @Field(() => String, { nullable: true, description: 'Why it was rejected, when the approver said.' })
  reason?: string;

  @Field(() => Date, { description: 'When it is cancelled if nobody has approved it.' })
  expiresAt!: Date;

  /** Whom approveDisbursement refuses (approval.records.ts requesterIdsOf), never shown: what requestedByYou compares with the caller. */
  requesterIds!: readonly string[];
}

@ObjectType({ description: "One POST of the final record to the client's own callbackUrl." })
export class RelayAttempt {
  @Field(() => Date)
  at!: Date;

  @Field(() => Int, { nullable: true, description: 'HTTP status answered, when one came back.' })
  status?: number;

  @Field(() => String, { nullable: true, description: 'Why no answer came back.' })
  error?: string;
}

@ObjectType({
  description: "Delivery of the final record to the client's own callbackUrl (bank payouts that gave one).",
})
export class RelayStatus {
  @Field(() => String)
  url!: string;

  @Field(() => Boolean)
  delivered!: boolean;

  @Field(() => Boolean, { description: 'Retries stopped without a 2xx answer.' })
  gaveUp!: boolean;

  @Field(() => [RelayAttempt])
  attempts!: RelayAttempt[];
}

@Directive('@key(fields: "referenceId")')
@ObjectType({ description: 'A payout as the gateway knows it.' })
export class Disbursement {
  @Field(() => ID)
  referenceId!: string;

  @Field(() => String, { nullable: true, description: "The provider's transaction identifier." })
  identifier?: string;

  @Field(() => DisbursementChannel)
  channel!: DisbursementChannel;

  @Field(() => PaymentType)
  paymentType!: PaymentType;

  @Field(() => String, { nullable: true, description: 'The payment type exactly as the provider wrote it.' })
  providerPaymentType?: string;

  @Field(() => DisbursementStatus)
  status!: DisbursementStatus;

  @Field(() => String, { nullable: true, description: 'The status exactly as the provider wrote it.' })
  providerStatus?: string;

  @Field(() => String, { nullable: true, description: 'Why the payout failed.' })
  message?: string;

  @Field(() => DecimalScalar)
  amount!: string;

  @Field(() => String)
  currency!: string;

  @Field(() => String)
  accountNumber!: string;

  @Field(() => String, { nullable: true })
  narration?: string;

  @Field(() => String, { nullable: true, description: "The operator's transaction id, once known." })
  externalId?: string;

  @Field(() => String, { nullable: true, description: 'The requester address the provider saw.' })
  ipAddress?: string;

  @Field(() => Date, { nullable: true, description: 'When the provider created the payout.' })
  createdAt?: Date;

  @Field(() => Date)
  updatedAt!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'When a scheduled payout is (or was) to be sent; null for one sent at once.',
  })
  sendAt?: Date;

  @Field(() => ID, {
    nullable: true,
    description:
      "The beneficiary it was paid to (payBeneficiary); its account details are the payout's own, copied then.",
  })
  beneficiaryId?: string;

  @Field(() => [DisbursementEvent], { description: 'Every status it went through, oldest first.' })
  history!: DisbursementEvent[];

  @Field(() => RelayStatus, { nullable: true })
  relay?: RelayStatus;

  @Field(() => DisbursementApproval, {
    nullable: true,
    description: 'Set when the payout controls held it for approval.',
  })
  approval?: DisbursementApproval;

  @Field(() => Boolean, {
    description:
      'True while its outcome is UNKNOWN and the gateway itself sends it again once the provider confirms it never received it (RESEND_AFTER_SECONDS): a payout a second person approved, or one scheduled for its time. False otherwise: a create sent at once is retried by its client.',
  })
  sendsAgain!: boolean;
}
