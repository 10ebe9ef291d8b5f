import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync, PubSub } from 'type-graphql';
import { createPubSub } from '@graphql-yoga/subscription';
import { DisbursementSubscriptionResolver } from './disbursement-subscription.resolver';
import { DisbursementResolver } from './disbursement.resolver';
import { WalletResolver } from './wallet.resolver';
import { DisbursementBatchResolver } from './disbursement-batch.resolver';

/** The schema, built from the type-graphql classes; `schema.graphql` is its printed, committed form. */
export function buildGatewaySchema(pubSub: PubSub = createPubSub()): GraphQLSchema {
  return buildSchemaSync({
    resolvers: [DisbursementResolver, DisbursementSubscriptionResolver, WalletResolver, DisbursementBatchResolver],
    validate: false,
    pubSub,
  });
}

export function printGatewaySchema(schema: GraphQLSchema = buildGatewaySchema()): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
