import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { DisbursementResolver } from './disbursement.resolver';

/** The schema, built from the type-graphql classes; `schema.graphql` is its printed, committed form. */
export function buildGatewaySchema(): GraphQLSchema {
  return buildSchemaSync({ resolvers: [DisbursementResolver], validate: false });
}

export function printGatewaySchema(schema: GraphQLSchema = buildGatewaySchema()): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
