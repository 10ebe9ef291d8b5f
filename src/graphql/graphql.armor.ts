import { ApolloArmor } from '@escape.tech/graphql-armor';
import { DocumentNode, GraphQLError, GraphQLSchema, parse, specifiedRules, validate } from 'graphql';

/**
 * GraphQL Armor's limits (OWASP GraphQL cheat sheet). Depth counts introspection too: the
 * standard introspection query that Apollo Sandbox sends is 21 levels deep, our own deepest 4.
 * The token limit is graphql-js's own parse option (Armor's Apollo plugin for it answers 500).
 */
export const PARSE_OPTIONS = { maxTokens: 1000 };
const armor = new ApolloArmor({
  maxDepth: { n: 25, ignoreIntrospection: false },
  maxAliases: { n: 15 },
  maxDirectives: { n: 20 },
  maxTokens: { enabled: false },
  costLimit: { maxCost: 5000 },
  blockFieldSuggestion: { enabled: true },
});

export const armorProtection = armor.protect();

/**
 * The same checks for operations arriving over graphql-ws, which does not go through Apollo:
 * parse with the token limit, then validate with GraphQL's and Armor's rules.
 */
export function parseAndValidate(schema: GraphQLSchema, query: string): { document: DocumentNode } | { errors: GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(query, PARSE_OPTIONS);
  } catch (error) {
    return { errors: [error instanceof GraphQLError ? error : new GraphQLError('Syntax error')] };
  }
  const errors = validate(schema, document, [...specifiedRules, ...armorProtection.validationRules]);
  return errors.length > 0 ? { errors: [...errors] } : { document };
}
