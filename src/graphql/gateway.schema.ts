import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync, PubSub } from 'type-graphql';
import { createPubSub } from '@graphql-yoga/subscription';
import { DisbursementSubscriptionResolver } from './disbursement-subscription.resolver';
import { DisbursementResolver } from './disbursement.resolver';
import { WalletResolver } from './wallet.resolver';
import { DisbursementBatchResolver } from './disbursement-batch.resolver';
import { DisbursementHistoryResolver } from './disbursement-history.resolver';

/** The schema, built from the type-graphql classes; `schema.graphql` is its printed, committed form. */
export function buildGatewaySchema(pubSub: PubSub = createPubSub()): GraphQLSchema {
  return buildSchemaSync({
    resolvers: [
      DisbursementResolver,
      DisbursementSubscriptionResolver,
      WalletResolver,
      DisbursementBatchResolver,
      DisbursementHistoryResolver,
    ],
    validate: false,
    pubSub,
  });
}

export function printGatewaySchema(schema: GraphQLSchema = buildGatewaySchema()): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
