import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, OperationTypeNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { printTrusted } from './api.print';
import type { CodedError } from '../shared/problem';
import { setSocketState, socketEvents } from './api.socket';
import { closeOf, FORBIDDEN_CLOSE } from './api.socket-close';
import { WsLink } from './api.ws-link';

/**
 * The console's one Apollo Client: queries and mutations over HTTP, subscriptions over graphql-ws,
 * both at this origin's /graphql with the signed-in token (read on every request and every connect).
 */
export interface Api {
  client: ApolloClient;
  /** Closes the socket and stops the client: on sign-out or a new token. */
  dispose(): void;
}

/** `refused`: the gateway closed the socket with 4403, the token expired or was revoked; retrying with it cannot help. */
export function createApi(token: () => string | undefined, refused: (error: CodedError) => void): Api {
  const authorization = (): Record<string, string> => {
    const current = token();
    return current ? { authorization: `Bearer ${current}` } : {};
  };
  const http = new SetContextLink((previous) => ({
    headers: { ...(previous.headers as Record<string, string> | undefined), ...authorization() },
  })).concat(new HttpLink({ uri: '/graphql', print: (node) => printTrusted(node) }));
  const socket = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: authorization,
    retryAttempts: Infinity,
    shouldRetry: (event) => closeOf(event)?.code !== FORBIDDEN_CLOSE,
    on: socketEvents(refused),
  });
  const link = ApolloLink.split(
    ({ query }) => {
      const definition = getMainDefinition(query);
      return definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.SUBSCRIPTION;
    },
    new WsLink(socket),
    http,
  );
  const client = new ApolloClient({
    link,
    // A screen opened again shows what it had at once, and asks again: others approve, pay and change meanwhile.
    defaultOptions: { watchQuery: { fetchPolicy: 'cache-and-network' } },
    cache: new InMemoryCache({
      typePolicies: {
        // Payouts are known by referenceId: a live change rewrites the one record every list shows.
        Disbursement: { keyFields: ['referenceId'] },
        AuditEntry: { keyFields: ['sequence'] },
        ReconciliationRun: { keyFields: ['id'] },
      },
    }),
  });
  return {
    client,
    dispose: () => {
      client.stop();
      void socket.dispose();
      setSocketState('idle');
    },
  };
}
