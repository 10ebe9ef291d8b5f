import { ApolloLink, CombinedGraphQLErrors } from '@apollo/client';
import type { GraphQLFormattedError } from 'graphql';
import type { Client } from 'graphql-ws';
import { Observable } from 'rxjs';
import { printTrusted } from './api.print';
import { closeError, closeOf } from './api.socket-close';

/** The `cursor` of a result's single root field, when it has one (disbursementEvents). */
function cursorOf(result: { data?: unknown }): string | undefined {
  const root: unknown = typeof result.data === 'object' && result.data ? Object.values(result.data)[0] : undefined;
  if (typeof root !== 'object' || root === null || !('cursor' in root)) return undefined;
  return typeof root.cursor === 'string' ? root.cursor : undefined;
}

/**
 * Subscriptions over graphql-ws, printed as the trusted-documents manifest has them. A subscription
 * with an `after` variable resumes from the last cursor it received: graphql-ws sends the same
 * payload again after a reconnect, so moving its `after` on makes the server replay exactly what
 * was missed while the socket was down, with no gap or repeat.
 */
export class WsLink extends ApolloLink {
  constructor(private readonly client: Pick<Client, 'subscribe'>) {
    super();
  }

  override request(operation: ApolloLink.Operation): Observable<ApolloLink.Result> {
    return new Observable((observer) => {
      const variables: Record<string, unknown> = { ...operation.variables };
      const payload = {
        query: printTrusted(operation.query),
        operationName: operation.operationName,
        variables,
      };
      return this.client.subscribe<ApolloLink.Result['data']>(payload, {
        next: (result) => {
          const cursor = 'after' in variables ? cursorOf(result) : undefined;
          if (cursor) variables.after = cursor;
          observer.next(result as ApolloLink.Result);
        },
        complete: () => observer.complete(),
        error: (error: unknown) => observer.error(socketError(error)),
      });
    });
  }
}

/** A refused subscription is its GraphQL errors, a closed socket its reason and code (api.socket-close.ts). */
function socketError(error: unknown): Error {
  if (error instanceof Error) return error;
  const close = closeOf(error);
  if (close) return closeError(close);
  const errors = (Array.isArray(error) ? error : [error]) as GraphQLFormattedError[];
  return new CombinedGraphQLErrors({ errors });
}
