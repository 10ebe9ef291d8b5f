import { ApolloClient, ApolloLink, CombinedGraphQLErrors, InMemoryCache } from '@apollo/client';
import { ApolloProvider } from '@apollo/client/react';
import { render, type RenderResult } from '@testing-library/react';
import type { FormattedExecutionResult } from 'graphql';
import type { ReactNode } from 'react';
import { Observable, type Subscriber } from 'rxjs';
import { sessionOf } from '../../src/api/api.session';
import { SessionContext } from '../../src/app/app.session';

type Variables = Record<string, unknown>;
/** An operation's answer: a result, or a promise of one (never settled: still loading). */
type Answer = (variables: Variables) => FormattedExecutionResult | Promise<FormattedExecutionResult>;

/**
 * A stand-in for the gateway behind Apollo Client: queries and mutations answered by operation
 * name, subscriptions fed by the test (`push`), and every request remembered.
 */
export class FakeApi {
  readonly calls: { operationName: string; variables: Variables }[] = [];
  private readonly answers = new Map<string, Answer>();
  /** Each subscription's open subscribers, by operation name. */
  private readonly streams = new Map<string, Set<Subscriber<FormattedExecutionResult>>>();
  readonly client: ApolloClient;

  constructor() {
    const link = new ApolloLink((operation) => {
      const { operationName = '', variables } = operation;
      this.calls.push({ operationName, variables });
      const stream = this.streams.get(operationName);
      if (stream)
        return new Observable<FormattedExecutionResult>((subscriber) => {
          stream.add(subscriber);
          return () => stream.delete(subscriber);
        });
      const answer = this.answers.get(operationName);
      if (!answer) return new Observable((o) => o.error(new Error(`no answer for ${operationName}`)));
      return new Observable((observer) => {
        void Promise.resolve(answer(variables)).then((result) => {
          observer.next(result);
          observer.complete();
        });
      });
    });
    this.client = new ApolloClient({
      link,
      cache: new InMemoryCache({ typePolicies: { Disbursement: { keyFields: ['referenceId'] } } }),
    });
  }

  answer(operationName: string, answer: Answer): this {
    this.answers.set(operationName, answer);
    return this;
  }

  /** Declares a subscription the test feeds with push(). */
  stream(operationName: string): this {
    this.streams.set(operationName, new Set());
    return this;
  }

  /** Ends every open subscription of that name with the gateway's error, as graphql-ws reports one. */
  fail(operationName: string, message: string, code: string): void {
    for (const subscriber of [...this.subscribers(operationName)])
      subscriber.error(new CombinedGraphQLErrors({ errors: [{ message, extensions: { code } }] }));
  }

  /** How many subscriptions of that name are open. */
  open(operationName: string): number {
    return this.subscribers(operationName).size;
  }

  private subscribers(operationName: string): Set<Subscriber<FormattedExecutionResult>> {
    const stream = this.streams.get(operationName);
    if (!stream) throw new Error(`no stream ${operationName}`);
    return stream;
  }

  push(operationName: string, data: Record<string, unknown>): void {
    for (const subscriber of this.subscribers(operationName)) subscriber.next({ data });
  }

  count(operationName: string): number {
    return this.calls.filter((call) => call.operationName === operationName).length;
  }
}

/** A GraphQL error as the gateway words it. */
export function refusal(message: string, code: string, fields?: string[]): FormattedExecutionResult {
  return { errors: [{ message, extensions: { code, ...(fields && { fields }) } }] };
}

/** Never answered: the screen stays loading. */
export const never = () => new Promise<FormattedExecutionResult>(() => undefined);

/** Renders a screen as the signed-in person of `token` (a JWT's claims), or open access. */
export function renderWith(api: FakeApi, ui: ReactNode, claims?: Record<string, unknown>): RenderResult {
  const token = claims
    ? `e30.${btoa(JSON.stringify(claims)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')}.sig`
    : undefined;
  return render(
    <ApolloProvider client={api.client}>
      <SessionContext.Provider value={{ ...sessionOf(token), open: !token, signOut: () => undefined }}>
        {ui}
      </SessionContext.Provider>
    </ApolloProvider>,
  );
}
