import { ApolloServerPlugin } from '@apollo/server';
import { DocumentNode, OperationDefinitionNode } from 'graphql';
import { ClientRateLimit } from '../../auth/client.rate-limit';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { GatewayContext } from '../gateway.context';
import { refusalError } from '../gateway.errors';
import { payoutRefusal } from './operation.payouts';
import { scopeRefusal } from './operation.scopes';
import { nulRefusal } from './operation.text';

/** Who runs a resolved operation, as the checks need it. */
export interface Caller {
  scopes: ReadonlySet<string>;
  quotaKey: string;
}

/**
 * The checks every transport makes once an operation is resolved and before any resolver runs, in
 * this order, so a refused operation spends none of the client's payout quota: scopes (403), a NUL
 * in an argument (400), the payouts it holds (429 when the quota is spent, else 400). Undefined when
 * it may run.
 */
export async function operationRefusal(
  rateLimit: ClientRateLimit,
  caller: Caller,
  operation: OperationDefinitionNode,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): Promise<{ error: GatewayError; httpStatus: number } | undefined> {
  const scope = scopeRefusal(operation, document, caller.scopes, variables);
  if (scope) return { error: scope, httpStatus: 403 };
  const nul = nulRefusal(document, variables);
  if (nul) return { error: nul, httpStatus: 400 };
  const payouts = await payoutRefusal(rateLimit, caller.quotaKey, operation, document, variables ?? undefined);
  if (payouts) return { error: payouts, httpStatus: payouts.code === 'RATE_LIMITED' ? 429 : 400 };
  return undefined;
}

/** Apollo (HTTP): `operationRefusal` as one hook, its refusal answered with its status. */
export function useOperationChecks(rateLimit: ClientRateLimit): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue, request }) {
          // Unresolved, it is failed by execution before any resolver runs.
          if (!operation) return;
          const refused = await operationRefusal(rateLimit, contextValue, operation, document, request.variables);
          if (refused) throw refusalError(refused.error, refused.httpStatus);
        },
      };
    },
  };
}
