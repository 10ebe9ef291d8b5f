import { AsyncLocalStorage } from 'node:async_hooks';

/** A provider call made while serving an operation: logged on the operation's own line, not a line of its own. */
export interface ProviderCall {
  endpoint: string;
  referenceId?: string;
  status: string;
  durationMs: number;
}

interface RequestScope {
  requestId: string;
  /** Present when the operation logs its provider calls itself (GraphQL over HTTP). */
  providerCalls?: ProviderCall[];
}

/** The request id of the work under way, for log lines and the provider's x-request-id, wherever it runs. */
const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `work` as one request; with `collectProviderCalls`, its provider calls are kept for its log line. */
export function withRequestId<T>(requestId: string, work: () => T, collectProviderCalls = false): T {
  return scope.run(collectProviderCalls ? { requestId, providerCalls: [] } : { requestId }, work);
}

export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}

/** Hands a provider call to the operation being served; false when none collects them (the rechecker, websockets). */
export function noteProviderCall(call: ProviderCall): boolean {
  const calls = scope.getStore()?.providerCalls;
  if (!calls) return false;
  calls.push(call);
  return true;
}

/** The provider calls the operation being served has made so far. */
export function providerCallsSoFar(): readonly ProviderCall[] {
  return scope.getStore()?.providerCalls ?? [];
}
