import { ApolloServerPlugin } from '@apollo/server';
import {
  DocumentNode,
  FragmentDefinitionNode,
  getOperationAST,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  SelectionSetNode,
} from 'graphql';
import { Scope, SCOPES } from '../auth/client.auth';
import { GatewayError } from '../disbursements/disbursement.errors';
import { GatewayContext } from './gateway.context';
import { refusalError } from './gateway.errors';

/** Root field names of an operation, through fragments; @skip/@include are ignored, so the check errs strict. */
function rootFields(operation: OperationDefinitionNode, document: DocumentNode): string[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const names: string[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) names.push(s.name.value);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return names;
}

/**
 * The scope a root field needs: every Mutation field (the create mutations, single and batch)
 * payouts:write, every Query and Subscription field payouts:read. Deciding by root type means a
 * field added later is never left open. Introspection (`__schema`, `__type`, `__typename`) needs none.
 */
function scopeFor(operation: OperationDefinitionNode['operation'], field: string): Scope | undefined {
  if (field.startsWith('__')) return undefined;
  return operation === OperationTypeNode.MUTATION ? SCOPES.write : SCOPES.read;
}

/**
 * The one scope check, for both transports, after parse and validation and before execution: a
 * refusal naming the first missing scope, or undefined. An operation that cannot be resolved is
 * left to execution, which fails it without running a resolver.
 */
export function scopeRefusal(
  document: DocumentNode,
  operationName: string | null | undefined,
  scopes: ReadonlySet<string>,
): GatewayError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  for (const field of rootFields(operation, document)) {
    const needed = scopeFor(operation.operation, field);
    if (needed && !scopes.has(needed)) {
      return new GatewayError('FORBIDDEN', `This token lacks the scope ${needed}, which ${field} needs`);
    }
  }
  return undefined;
}

/** Apollo (HTTP): refuses with 403 once the operation is resolved, before any resolver runs. */
export function useScopes(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operationName, contextValue }) {
          const refused = scopeRefusal(document, operationName, contextValue.scopes);
          if (refused) throw refusalError(refused, 403);
        },
      };
    },
  };
}
