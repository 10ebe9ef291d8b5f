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

/** What a subscriber saw, as it arrives, whatever client carries it. */
export function recorder<T>(): {
  stream: Omit<Subscription<T>, 'dispose'>;
  /** One result, captured whole for the leak checks. */
  next(result: { data?: T | null; errors?: readonly unknown[] }): void;
  error(error: unknown): void;
  complete(): void;
} {
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
  completed.catch(() => undefined);
  return {
    stream: {
      events,
      errors,
      completed,
      isCompleted: () => done,
      waitFor: (count) =>
        events.length >= count ? Promise.resolve(events) : new Promise((resolve) => waiters.push({ count, resolve })),
    },
    next(result) {
      capturedResponses.push(JSON.stringify(result));
      if (result.errors && result.errors.length > 0) errors.push(...result.errors);
      if (result.data) events.push(result.data);
      for (const w of waiters.filter((x) => events.length >= x.count)) w.resolve(events);
    },
    error(error) {
      capturedResponses.push(String(error));
      errors.push(error);
      done = true;
      rejectCompleted(error);
    },
    complete() {
      done = true;
      resolveCompleted();
    },
  };
}

/** Subscribes with a real graphql-ws client and records what arrives. */
export function subscribe<T>(client: Client, query: string, variables: Record<string, unknown> = {}): Subscription<T> {
  const r = recorder<T>();
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => r.next(result),
      error: (error) => r.error(error),
      complete: () => r.complete(),
    },
  );
  return { ...r.stream, dispose };
}
