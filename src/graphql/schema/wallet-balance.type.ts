import { Field, ObjectType } from 'type-graphql';
import { DecimalScalar } from './decimal.scalar';

@ObjectType({ description: "The merchant wallet's balance as the provider reports it (kept a few seconds)." })
export class WalletBalance {
  @Field(() => DecimalScalar, { description: 'Negative when the wallet is overdrawn.' })
  amount!: string;

  @Field(() => String, { nullable: true, description: 'Null when the provider does not name it.' })
  currency?: string;

  @Field(() => Date, { description: 'When the provider gave this figure.' })
  asOf!: Date;
}
