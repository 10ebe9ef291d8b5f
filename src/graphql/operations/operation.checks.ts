import { ApolloServerPlugin } from '@apollo/server';
import { ClientRateLimit } from '../../auth/client.rate-limit';
import { GatewayContext } from '../gateway.context';
import { refusalError } from '../gateway.errors';
import { payoutRefusal } from './operation.payouts';
import { scopeRefusal } from './operation.scopes';
import { nulRefusal } from './operation.text';

/**
 * Apollo (HTTP): the checks the streaming core makes (operation.core.ts), in its order, once the
 * operation is resolved and before any resolver runs: scopes (403), a NUL in an argument (400), the
 * payouts it holds (429 when the quota is spent, else 400). One hook, so a refused operation spends
 * none of the client's quota, and Apollo calls one listener instead of three.
 */
export function useOperationChecks(rateLimit: ClientRateLimit): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue, request }) {
          // Unresolved, it is failed by execution before any resolver runs.
          if (!operation) return;
          const scope = scopeRefusal(operation, document, contextValue.scopes, request.variables);
          if (scope) throw refusalError(scope, 403);
          const nul = nulRefusal(document, request.variables);
          if (nul) throw refusalError(nul, 400);
          const payouts = await payoutRefusal(rateLimit, contextValue.quotaKey, operation, document, request.variables);
          if (payouts) throw refusalError(payouts, payouts.code === 'RATE_LIMITED' ? 429 : 400);
        },
      };
    },
  };
}
