import { addResolversToSchema, buildSubgraphSchema, GraphQLResolverMap, printSubgraphSchema } from '@apollo/subgraph';
import { GraphQLSchema, parse } from 'graphql';
import { createResolversMap } from 'type-graphql';
import { badInput } from '../../disbursements/disbursement.errors';
import { GatewayContext } from '../gateway.context';
import { beneficiaryOf } from './beneficiary.resolver';
import { disbursementOf } from './disbursement.resolver';

/** Federation 2.3: what composition reads to know this is a Federation 2 subgraph and where `@key` comes from. */
export const FEDERATION_LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])';

/** A representation's key field, checked: a router sends what another subgraph returned. */
function keyOf(representation: Record<string, unknown>, field: string, typename: string): string {
  const key = representation[field];
  if (typeof key !== 'string' || key === '') {
    throw badInput(`A ${typename} representation needs its ${field} as a non-empty string`, ['representations']);
  }
  return key;
}

/**
 * Each entity found as its own query field finds it, so a router resolves only the caller's own
 * (another merchant's key resolves to null), under the same scopes (operation.scopes.ts).
 */
const referenceResolvers = {
  Disbursement: {
    __resolveReference: (representation: Record<string, unknown>, ctx: GatewayContext) =>
      disbursementOf(ctx, keyOf(representation, 'referenceId', 'Disbursement')),
  },
  Beneficiary: {
    __resolveReference: (representation: Record<string, unknown>, ctx: GatewayContext) =>
      beneficiaryOf(ctx, keyOf(representation, 'id', 'Beneficiary')),
  },
};

/**
 * The served schema: the standalone one (schema.graphql) as a Federation 2 subgraph, adding
 * `_service { sdl }` and `_entities` for Disbursement (keyed by referenceId) and Beneficiary (by id).
 * Its SDL carries the `@key`s the type-graphql classes declare; the resolvers are theirs.
 */
export function buildSubgraph(standalone: GraphQLSchema): GraphQLSchema {
  const subgraph = buildSubgraphSchema(parse(`${FEDERATION_LINK}\n\n${printSubgraphSchema(standalone)}`));
  // type-graphql's map and @apollo/subgraph's have the same runtime shape; their types disagree on index signatures.
  addResolversToSchema(subgraph, createResolversMap(standalone) as unknown as GraphQLResolverMap);
  addResolversToSchema(subgraph, referenceResolvers);
  return subgraph;
}
