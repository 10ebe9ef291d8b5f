import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, OperationTypeNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { printTrusted } from './api.print';
import { setSocketState } from './api.socket';
import { WsLink } from './api.ws-link';

/** graphql-ws's close code for a refused credential: retrying with the same token cannot help. */
const FORBIDDEN_CLOSE = 4403;

/**
 * The console's one Apollo Client: queries and mutations over HTTP, subscriptions over graphql-ws,
 * both at this origin's /graphql with the signed-in token (read on every request and every connect).
 */
export interface Api {
  client: ApolloClient;
  /** Closes the socket and stops the client: on sign-out or a new token. */
  dispose(): void;
}

export function createApi(token: () => string | undefined): Api {
  const authorization = (): Record<string, string> => {
    const current = token();
    return current ? { authorization: `Bearer ${current}` } : {};
  };
  const http = new SetContextLink((previous) => ({
    headers: { ...(previous.headers as Record<string, string> | undefined), ...authorization() },
  })).concat(new HttpLink({ uri: '/graphql', print: (node) => printTrusted(node) }));
  let connectedBefore = false;
  const socket = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: authorization,
    retryAttempts: Infinity,
    shouldRetry: (event) =>
      !(typeof event === 'object' && event !== null && 'code' in event && event.code === FORBIDDEN_CLOSE),
    on: {
      connecting: () => setSocketState(connectedBefore ? 'reconnecting' : 'connecting'),
      connected: () => {
        connectedBefore = true;
        setSocketState('live');
      },
      // 1000: graphql-ws closed an idle socket itself (no subscription left); anything else was lost.
      closed: (event) => {
        const normal = typeof event === 'object' && event !== null && 'code' in event && event.code === 1000;
        setSocketState(connectedBefore && !normal ? 'reconnecting' : 'idle');
      },
    },
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
