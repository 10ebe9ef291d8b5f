import { ApolloClient, gql as parse, HttpLink, InMemoryCache } from '@apollo/client';
import { createClient, NetworkError } from 'graphql-sse';
import { recorder, Subscription, subscribe as overWs, wsClient } from './ws';

export type Transport = 'websocket' | 'multipart' | 'sse';
export const TRANSPORTS: Transport[] = ['websocket', 'multipart', 'sse'];

/** What a subscriber saw, whatever carried it. */
export interface Stream<T> extends Subscription<T> {
  /** Ends the client's side (a socket or an HTTP stream closed by the client) and its client. */
  close(): Promise<void>;
}

/** Apollo Client 4 with an HttpLink and nothing else: subscriptions go over multipart HTTP. */
function overMultipart<T>(
  graphqlUrl: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Stream<T> {
  const client = new ApolloClient({ link: new HttpLink({ uri: graphqlUrl, headers }), cache: new InMemoryCache() });
  const r = recorder<T>();
  const subscription = client.subscribe<T>({ query: parse(query), variables }).subscribe({
    next: (result) => {
      if (result.error) r.error(result.error);
      else r.next({ data: result.data });
    },
    error: (error: unknown) => r.error(error),
    complete: () => r.complete(),
  });
  const close = async () => {
    subscription.unsubscribe();
    client.stop();
  };
  return { ...r.stream, dispose: () => void close(), close };
}

/** graphql-sse's own client, distinct connections mode. */
function overSse<T>(
  graphqlUrl: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Stream<T> {
  const client = createClient({ url: `${graphqlUrl}/stream`, headers, retryAttempts: 0, singleConnection: false });
  const r = recorder<T>();
  const stop = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => r.next(result),
      error: (error) => r.error(error),
      complete: () => r.complete(),
    },
  );
  const close = async () => {
    stop();
    client.dispose();
  };
  return { ...r.stream, dispose: () => void close(), close };
}

/** Subscribes over one transport with its real client; `authorization` as each transport carries it. */
export function subscribeOver<T>(
  transport: Transport,
  graphqlUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  authorization?: string,
): Stream<T> {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  if (transport === 'multipart') return overMultipart<T>(graphqlUrl, query, variables, headers);
  if (transport === 'sse') return overSse<T>(graphqlUrl, query, variables, headers);
  const client = wsClient(graphqlUrl, headers);
  const sub = overWs<T>(client, query, variables);
  const close = async () => {
    sub.dispose();
    await client.dispose();
  };
  return { ...sub, dispose: () => void close(), close };
}

const STATUS_CODES: Record<number, string> = {
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The error codes a subscriber was told, as its client shows them: GraphQL errors' `extensions.code`
 * (Apollo's CombinedGraphQLErrors and CombinedProtocolErrors hold those errors as `errors`),
 * graphql-sse's NetworkError (a refusal before the stream opened: its client shows only the HTTP
 * status), or graphql-ws's close event (`close <code>`). Apollo's ServerError, its shape for an
 * answer that is not GraphQL, shows no code.
 */
export function codesOf(errors: readonly unknown[]): string[] {
  const codes: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value instanceof NetworkError) {
      const status = value.response?.status;
      if (status !== undefined && STATUS_CODES[status]) codes.push(STATUS_CODES[status]);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const v = value as Record<string, unknown>;
    const code = (v.extensions as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string') codes.push(code);
    if (Array.isArray(v.errors)) visit(v.errors);
    if (typeof v.code === 'number' && typeof v.reason === 'string') codes.push(`close ${v.code}`);
  };
  visit(errors);
  return [...new Set(codes)];
}

/** The messages of what a subscriber was told, however its client shaped them. */
export function messagesOf(errors: readonly unknown[]): string {
  return JSON.stringify(errors, (_key, value: unknown) =>
    value instanceof Error ? { ...value, message: value.message } : value,
  );
}
