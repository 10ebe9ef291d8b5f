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

/** Distinct operation texts remembered; clients send a handful, so this bounds only abuse. */
const DOCUMENT_CACHE_SIZE = 500;
const checkedDocuments = new Map<string, DocumentNode>();

/**
 * The same checks for operations arriving over graphql-ws, which does not go through Apollo:
 * parse with the token limit, then validate with GraphQL's and Armor's rules. A valid document
 * is kept by its text, so ten thousand subscribers of one query share one parsed copy (a parse
 * keeps every token and location: about 10 KB each) and validation runs once.
 */
export function parseAndValidate(schema: GraphQLSchema, query: string): { document: DocumentNode } | { errors: GraphQLError[] } {
  const cached = checkedDocuments.get(query);
  if (cached) return { document: cached };
  let document: DocumentNode;
  try {
    document = parse(query, { ...PARSE_OPTIONS, noLocation: true });
  } catch (error) {
    return { errors: [error instanceof GraphQLError ? error : new GraphQLError('Syntax error')] };
  }
  const errors = validate(schema, document, [...specifiedRules, ...armorProtection.validationRules]);
  if (errors.length > 0) return { errors: [...errors] };
  if (checkedDocuments.size >= DOCUMENT_CACHE_SIZE) checkedDocuments.clear();
  checkedDocuments.set(query, document);
  return { document };
}
