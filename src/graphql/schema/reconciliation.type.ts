import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DecimalScalar } from './decimal.scalar';
import { DisbursementStatus } from './disbursement.enums';

export const ReconciliationState = { RUNNING: 'RUNNING', DONE: 'DONE', FAILED: 'FAILED' } as const;
export type ReconciliationState = (typeof ReconciliationState)[keyof typeof ReconciliationState];
registerEnumType(ReconciliationState, { name: 'ReconciliationState' });

export const DiscrepancyKind = {
  STATUS_DIFFERS: 'STATUS_DIFFERS',
  AMOUNT_DIFFERS: 'AMOUNT_DIFFERS',
  MISSING_AT_PROVIDER: 'MISSING_AT_PROVIDER',
} as const;
export type DiscrepancyKind = (typeof DiscrepancyKind)[keyof typeof DiscrepancyKind];
registerEnumType(DiscrepancyKind, {
  name: 'DiscrepancyKind',
  description:
    'STATUS_DIFFERS: the provider says another status; AMOUNT_DIFFERS: another amount; MISSING_AT_PROVIDER: the provider no longer has a payout it had confirmed.',
});

@ObjectType({ description: 'Where the gateway and the provider disagree about one payout.' })
export class Discrepancy {
  @Field(() => ID)
  referenceId!: string;

  @Field(() => DiscrepancyKind)
  kind!: DiscrepancyKind;

  @Field(() => DisbursementStatus)
  gatewayStatus!: DisbursementStatus;

  @Field(() => DisbursementStatus, { nullable: true, description: 'Null when the provider has no such payout.' })
  providerStatus?: DisbursementStatus | null;

  @Field(() => Boolean, {
    description:
      "True when the gateway took the provider's final status (its history and audit say RECONCILED); false: a person must look.",
  })
  resolved!: boolean;
}

@ObjectType({
  description:
    "The wallet between two readings: `opening` (the previous run's closing reading, or this run's first), `closing`, what the gateway's payouts accepted and refunded in between explain, and what they do not: money that moved outside the gateway.",
})
export class BalanceCheck {
  @Field(() => String, { nullable: true })
  currency?: string;

  @Field(() => DecimalScalar)
  opening!: string;

  @Field(() => DecimalScalar)
  closing!: string;

  @Field(() => DecimalScalar, { description: 'Negative: payouts took money out.' })
  explained!: string;

  @Field(() => DecimalScalar)
  unexplained!: string;
}

@ObjectType({ description: 'A reconciliation of your payouts created in a window against the provider.' })
export class ReconciliationRun {
  @Field(() => ID)
  id!: string;

  @Field(() => Date)
  from!: Date;

  @Field(() => Date)
  to!: Date;

  @Field(() => ReconciliationState)
  state!: ReconciliationState;

  @Field(() => Int, { description: 'Payouts checked so far.' })
  checked!: number;

  @Field(() => Int, { description: 'Payouts created in the window.' })
  total!: number;

  @Field(() => [Discrepancy])
  discrepancies!: Discrepancy[];

  @Field(() => BalanceCheck, { nullable: true, description: 'Once DONE.' })
  balance?: BalanceCheck;

  @Field(() => Date)
  startedAt!: Date;

  @Field(() => Date, { nullable: true })
  finishedAt?: Date;

  @Field(() => String, { nullable: true, description: 'Why a FAILED run stopped.' })
  failure?: string;
}
