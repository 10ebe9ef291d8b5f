import { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { graphQLResponseType } from '../../http/http.reply';
import { GatewayContext } from '../gateway.context';

/** Apollo's codes for a document that does not parse or validate, and for variables that cannot be coerced. */
const DOCUMENT_ERROR_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/** Raised by GraphQL itself for the document or its variables, not a refusal of the gateway's own. */
function isDocumentError(error: GraphQLError): boolean {
  return !(error.originalError instanceof GatewayError) && DOCUMENT_ERROR_CODES.has(String(error.extensions.code));
}

/**
 * GraphQL over HTTP: a document that does not parse or validate, or whose variables cannot be
 * coerced, is answered 400 in application/graphql-response+json but 200 in application/json, where
 * a client (or a router in front) reads a 4xx as a transport failure and would never see the errors.
 */
export function useGraphQLOverHttpStatus(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ request, response, errors }) {
          if (response.http.status !== 400 || !errors?.length) return;
          if (response.body.kind !== 'single' || response.body.singleResult.data !== undefined) return;
          if (!graphQLResponseType(request.http?.headers.get('accept')).startsWith('application/json')) return;
          if (errors.every(isDocumentError)) response.http.status = 200;
        },
      };
    },
  };
}
