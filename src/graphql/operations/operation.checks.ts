import { ApolloServerPlugin } from '@apollo/server';
import { DocumentNode, getVariableValues, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { ClientRateLimit } from '../../auth/client.rate-limit';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { GatewayContext } from '../gateway.context';
import { refusalError } from '../gateway.errors';
import { entitiesRefusal } from './operation.entities';
import { payoutRefusal } from './operation.payouts';
import { rootFields, scopeRefusal } from './operation.scopes';
import { nulRefusal } from './operation.text';

/** Who runs a resolved operation, as the checks need it. */
export interface Caller {
  scopes: ReadonlySet<string>;
  quotaKey: string;
}

type Variables = Readonly<Record<string, unknown>>;

/**
 * The variables as execution will see them: coerced by the operation's definitions, defaults
 * included, so no check reads less than a resolver gets (a representation or a payout list in a
 * default is checked as one sent). Variables that do not coerce fail execution before any resolver
 * runs; the checks then read them as sent.
 */
function coercedVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Variables | null | undefined,
): Variables {
  const definitions = operation.variableDefinitions ?? [];
  if (definitions.length === 0) return variables ?? {};
  return getVariableValues(schema, definitions, variables ?? {}).coerced ?? variables ?? {};
}

/**
 * The checks every transport makes once an operation is resolved and before any resolver runs, on
 * its variables as coerced, in this order, so a refused operation spends none of the client's payout
 * quota: scopes (403), a NUL in an argument (400), more `_entities` representations than it may ask
 * for (400), the payouts it holds (429 when the quota is spent, else 400). Undefined when it may run.
 */
export async function operationRefusal(
  rateLimit: ClientRateLimit,
  caller: Caller,
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  document: DocumentNode,
  sent: Variables | null | undefined,
): Promise<{ error: GatewayError; httpStatus: number } | undefined> {
  const variables = coercedVariables(schema, operation, sent);
  // Its fields walked once (through every fragment) for the three checks that read them.
  const fields = rootFields(operation, document);
  const scope = scopeRefusal(operation, fields, caller.scopes, variables);
  if (scope) return { error: scope, httpStatus: 403 };
  const nul = nulRefusal(document, variables);
  if (nul) return { error: nul, httpStatus: 400 };
  const entities = entitiesRefusal(fields, variables);
  if (entities) return { error: entities, httpStatus: 400 };
  const payouts = await payoutRefusal(rateLimit, caller.quotaKey, operation, fields, variables);
  if (payouts) return { error: payouts, httpStatus: payouts.code === 'RATE_LIMITED' ? 429 : 400 };
  return undefined;
}

/** Apollo (HTTP): `operationRefusal` as one hook, its refusal answered with its status. */
export function useOperationChecks(rateLimit: ClientRateLimit): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue, request, schema }) {
          // Unresolved, it is failed by execution before any resolver runs.
          if (!operation) return;
          const refused = await operationRefusal(
            rateLimit,
            contextValue,
            schema,
            operation,
            document,
            request.variables,
          );
          if (refused) throw refusalError(refused.error, refused.httpStatus);
        },
      };
    },
  };
}
