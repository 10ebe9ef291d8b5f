import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestScope {
  requestId: string;
}

/** The request id of the work under way, for log lines and the provider's x-request-id, wherever it runs. */
const scope = new AsyncLocalStorage<RequestScope>();

export function withRequestId<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId }, work);
}

export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}
