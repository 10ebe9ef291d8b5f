import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  DocumentNode,
  GraphQLError,
  GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  ValidationRule,
} from 'graphql';
import { IncomingHttpHeaders } from 'node:http';
import { refusalError } from '../gateway.errors';
import { PARSE_OPTIONS } from './operation.parse';
import type { DocumentRequest, TrustedDocuments } from './trusted-documents.gate';

/**
 * The request rules of both transports, in one place: Apollo applies them over HTTP, and
 * OperationChecker over graphql-ws, which does not go through Apollo.
 *
 * GraphQL Armor's limits (OWASP GraphQL cheat sheet). Depth counts introspection too: the
 * standard introspection query that Apollo Sandbox sends is 21 levels deep, our own deepest 4.
 * The token limit is graphql-js's own parse option (operation.parse.ts).
 * Field suggestions are removed from messages by formatError, which both transports share.
 */
const armor = new ApolloArmor({
  maxDepth: { n: 25, ignoreIntrospection: false },
  maxAliases: { n: 15 },
  maxDirectives: { n: 20 },
  maxTokens: { enabled: false },
  costLimit: { maxCost: 5000 },
  blockFieldSuggestion: { enabled: false },
});

const armorProtection = armor.protect();

/** The subgraph's `_service { sdl }` spells the whole schema out: it is introspection, and refused with it. */
const NoServiceSdlRule: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '_service' && context.getParentType() === context.getSchema().getQueryType()) {
      context.reportError(
        new GraphQLError('GraphQL introspection has been disabled, and _service is introspection.', { nodes: node }),
      );
    }
  },
});

/** Validation rules beyond GraphQL's own; introspection is refused by a rule, the same on both transports. */
export function requestValidationRules(introspection: boolean): ValidationRule[] {
  return [
    ...armorProtection.validationRules,
    ...(introspection ? [] : [NoSchemaIntrospectionCustomRule, NoServiceSdlRule]),
  ];
}

/** Armor's Apollo plugins (none is enabled today but the list follows the configuration above). */
export const armorPlugins = armorProtection.plugins;

/** Distinct operation texts remembered; clients send a handful, so this bounds only abuse. */
const DOCUMENT_CACHE_SIZE = 500;

/** The codes Apollo gives the same failures over HTTP. */
function coded(error: GraphQLError, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED'): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code },
  });
}

/**
 * The HTTP checks for operations arriving over graphql-ws: parse with the token limit, then
 * validate with GraphQL's rules and requestValidationRules. A valid document is kept by its text,
 * so ten thousand subscribers of one query share one parsed copy (a parse keeps every token and
 * location: about 10 KB each) and validation runs once.
 */
export class OperationChecker {
  private readonly checked = new Map<string, DocumentNode>();
  private readonly rules: ValidationRule[];

  constructor(
    private readonly schema: GraphQLSchema,
    introspection: boolean,
    /** TRUSTED_DOCUMENTS, applied by checkRequest. */
    private readonly trusted?: TrustedDocuments,
  ) {
    this.rules = [...specifiedRules, ...requestValidationRules(introspection)];
  }

  /**
   * A whole request (graphql-ws payload, or any transport's): the trusted documents rule first (an
   * id becomes the manifest's text), then `check`. Transports that do not go through Apollo use this.
   */
  checkRequest(
    request: DocumentRequest & { query?: unknown },
    headers: IncomingHttpHeaders,
  ): { document: DocumentNode } | { errors: GraphQLError[] } {
    let query = typeof request.query === 'string' ? request.query : '';
    if (this.trusted) {
      const admitted = this.trusted.admit(request, headers);
      if ('refused' in admitted) return { errors: [refusalError(admitted.refused)] };
      query = admitted.query ?? query;
    }
    return this.check(query);
  }

  check(query: string): { document: DocumentNode } | { errors: GraphQLError[] } {
    const cached = this.checked.get(query);
    if (cached) return { document: cached };
    let document: DocumentNode;
    try {
      document = parse(query, { ...PARSE_OPTIONS, noLocation: true });
    } catch (error) {
      return {
        errors: [
          coded(error instanceof GraphQLError ? error : new GraphQLError('Syntax Error'), 'GRAPHQL_PARSE_FAILED'),
        ],
      };
    }
    const errors = validate(this.schema, document, this.rules);
    if (errors.length > 0) return { errors: errors.map((e) => coded(e, 'GRAPHQL_VALIDATION_FAILED')) };
    if (this.checked.size >= DOCUMENT_CACHE_SIZE) this.checked.clear();
    this.checked.set(query, document);
    return { document };
  }
}
