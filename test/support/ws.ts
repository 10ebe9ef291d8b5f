import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { capturedResponses } from './stack';

export interface Subscription<T> {
  events: T[];
  errors: unknown[];
  /** Resolves when the server completes the subscription. */
  completed: Promise<void>;
  isCompleted(): boolean;
  /** Resolves once `count` events have arrived. */
  waitFor(count: number): Promise<T[]>;
  dispose(): void;
}

export function wsClient(httpUrl: string, connectionParams: Record<string, unknown> = {}): Client {
  return createClient({
    url: httpUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

/** Subscribes with a real graphql-ws client and records what arrives. */
export function subscribe<T>(client: Client, query: string, variables: Record<string, unknown> = {}): Subscription<T> {
  const events: T[] = [];
  const errors: unknown[] = [];
  const waiters: { count: number; resolve: (v: T[]) => void }[] = [];
  let done = false;
  let resolveCompleted!: () => void;
  let rejectCompleted!: (e: unknown) => void;
  const completed = new Promise<void>((resolve, reject) => {
    resolveCompleted = resolve;
    rejectCompleted = reject;
  });
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => {
        capturedResponses.push(JSON.stringify(result));
        if (result.errors) errors.push(...result.errors);
        if (result.data) events.push(result.data);
        for (const w of waiters.filter((x) => events.length >= x.count)) w.resolve(events);
      },
      error: (error) => {
        capturedResponses.push(String(error));
        errors.push(error);
        done = true;
        rejectCompleted(error);
      },
      complete: () => {
        done = true;
        resolveCompleted();
      },
    },
  );
  completed.catch(() => undefined);
  return {
    events,
    errors,
    completed,
    isCompleted: () => done,
    waitFor: (count) =>
      events.length >= count ? Promise.resolve(events) : new Promise((resolve) => waiters.push({ count, resolve })),
    dispose,
  };
}
