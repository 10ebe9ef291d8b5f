import { Repeater } from '@repeaterjs/repeater';
import {
  ExecutionArgs,
  ExecutionResult,
  execute,
  getOperationAST,
  GraphQLError,
  GraphQLFormattedError,
  OperationTypeNode,
  subscribe,
} from 'graphql';
import { randomUUID } from 'node:crypto';
import { IncomingHttpHeaders } from 'node:http';
import { Authentication, Principal } from '../../auth/client.auth';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { Interruptible } from '../../disbursements/wait.interrupt';
import { badRequest, clientRateLimited, tooManyClientOperations, tooManyOperations } from '../request.errors';
import { tokenExpired, tokenRevoked, unauthenticated } from '../../auth/auth.errors';
import { tracingOn } from '../../observability/tracing.spans';
import { createContext, GatewayContext, GraphQLServing } from '../gateway.context';
import { formatError, refusalError } from '../gateway.errors';
import { OperationChecker } from './operation.armor';
import { atTime } from './token.expiry';
import { operationRefusal } from './operation.checks';
import { noteClientTrace, tracedExecution } from './operation.tracing';

/** What a client asks a streaming transport to run. */
export interface OperationRequest {
  query?: unknown;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  /** `persistedQuery` (trusted documents) and `traceparent` are read from here. */
  extensions?: unknown;
  documentId?: unknown;
}

/** The `type` label of gateway_graphql_operations_total for each transport that does not go through Apollo. */
export type StreamTransport = 'websocket' | 'multipart' | 'sse';

export type Admission =
  { args: ExecutionArgs & { contextValue: GatewayContext } } | { errors: readonly GraphQLError[] };

/**
 * What a transport carries, for one request (multipart: subscriptions only; a GET: no mutations):
 * the refusal of an operation of another kind, or undefined.
 */
export type Carries = (operation: OperationTypeNode) => GatewayError | undefined;

/** A refusal as the one GraphQL error (refusalError) that carries its GatewayError, so formatError passes its code on. */
export function refusal(error: GatewayError): GraphQLError[] {
  return [refusalError(error)];
}

const execution = (args: ExecutionArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> => {
  const operation = getOperationAST(args.document, args.operationName);
  return operation?.operation === OperationTypeNode.SUBSCRIPTION
    ? subscribe(args)
    : Promise.resolve(execute(args) as ExecutionResult | Promise<ExecutionResult>);
};

/**
 * The transport-free core that graphql-ws, multipart HTTP and server-sent events share, as
 * graphql-ws and graphql-sse are cores with thin adapters: credentials, the per-connection limit,
 * the rate limit, parse and validation (with introspection and Armor's limits), the operation's
 * checks (operation.checks.ts: scopes, NUL, payouts, shared with HTTP), operation metrics, one
 * context per operation, one way to execute, error masking, and the end of a stream when its token
 * expires. An adapter only moves bytes and tells the core when its client went away.
 */
export class GraphQLOperations {
  private readonly checker: OperationChecker;
  /** How to end each HTTP stream still open, for shutdown. */
  private readonly open = new Set<() => void>();
  private readonly execution: (args: ExecutionArgs) => Promise<AsyncIterable<ExecutionResult> | ExecutionResult>;

  /** Operations each client (its quota key) runs at once, across its connections; 0 entries are removed. */
  private readonly perClient = new Map<string, number>();

  constructor(
    readonly serving: GraphQLServing,
    /** MAX_SUBSCRIPTIONS_PER_CLIENT (0: no cap). */
    readonly maxOperationsPerClient = 0,
  ) {
    this.checker = new OperationChecker(serving.schema, serving.introspection, serving.trustedDocuments);
    // One span per operation when tracing is on; nothing in between otherwise.
    this.execution = tracingOn() ? tracedExecution(execution) : execution;
  }

  authenticate(authorization: string | undefined, address: string | undefined): Promise<Authentication> {
    return this.serving.auth.authenticate(authorization, address);
  }

  /** The operations of one client connection (a websocket, or one HTTP stream), at most `maxOperations` at once. */
  connection(principal: Principal, transport: StreamTransport, maxOperations: number): OperationConnection {
    return new OperationConnection(this, this.checker, principal, transport, maxOperations);
  }

  /** Takes one of the client's places, or answers false when it holds all of them. */
  takeClientPlace(quotaKey: string): boolean {
    const held = this.perClient.get(quotaKey) ?? 0;
    if (this.maxOperationsPerClient > 0 && held >= this.maxOperationsPerClient) return false;
    this.perClient.set(quotaKey, held + 1);
    return true;
  }

  /** Gives back `count` of the client's places. */
  freeClientPlaces(quotaKey: string, count = 1): void {
    const held = (this.perClient.get(quotaKey) ?? 0) - count;
    if (held > 0) this.perClient.set(quotaKey, held);
    else this.perClient.delete(quotaKey);
  }

  /** The one way an admitted operation runs, on every streaming transport (hooks such as tracing go here). */
  execute(args: ExecutionArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> {
    return this.execution(args);
  }

  /** Registers how to end an open HTTP stream; returns the removal, for when it ends. */
  track(end: () => void): () => void {
    const entry = () => end();
    this.open.add(entry);
    return () => this.open.delete(entry);
  }

  /** Shutdown: every open HTTP stream ends (each completes, so its client sees a clean end). */
  endAll(): void {
    for (const end of this.open) end();
    this.open.clear();
  }

  /** Errors masked as on HTTP: a code and a safe message. */
  formatErrors(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
    return errors.map((e) => formatError(e.toJSON(), e, this.serving.logger));
  }

  /** A result with its errors masked (unchanged when it has none). */
  formatResult<R extends { errors?: readonly GraphQLError[] }>(result: R): R {
    // The formatted errors take the GraphQLErrors' place in what the transport serializes.
    return result.errors
      ? { ...result, errors: this.formatErrors(result.errors) as unknown as GraphQLError[] }
      : result;
  }
}

/**
 * Calls `end` once, when the principal's credential stops being accepted: its JWT expires, or a
 * reload drops its shared token or its merchant. Returns the cancel.
 */
export function onCredentialEnd(
  principal: Pick<Principal, 'acceptedUntil' | 'revoked'>,
  end: (why: 'expired' | 'revoked') => void,
): () => void {
  const { acceptedUntil, revoked } = principal;
  const cancelExpiry = acceptedUntil === undefined ? undefined : atTime(acceptedUntil, () => end('expired'));
  const onRevoked = () => end('revoked');
  if (revoked?.aborted) queueMicrotask(onRevoked);
  else revoked?.addEventListener('abort', onRevoked, { once: true });
  return () => {
    cancelExpiry?.();
    revoked?.removeEventListener('abort', onRevoked);
  };
}

/**
 * A stream that ends when the credential stops being accepted: its last result is an error
 * saying so. Ending it early (`return()`) ends the source and clears the timer.
 */
export function endOnExpiry(
  source: AsyncIterable<ExecutionResult>,
  principal: Pick<Principal, 'acceptedUntil' | 'revoked'>,
): AsyncIterableIterator<ExecutionResult> {
  return new Repeater<ExecutionResult>(async (push, stop) => {
    const iterator = source[Symbol.asyncIterator]();
    let cancelExpiry: (() => void) | undefined;
    let why: GatewayError = tokenExpired();
    const expired = new Promise<'expired'>((resolve) => {
      cancelExpiry = onCredentialEnd(principal, (reason) => {
        why = reason === 'expired' ? tokenExpired() : tokenRevoked();
        resolve('expired');
      });
    });
    // Raced once here; each event's wait is cut short by the result without leaving anything on it.
    const ending = new Interruptible(Promise.race([expired, stop.then((): 'stopped' => 'stopped')]));
    try {
      for (;;) {
        const next = await ending.wait(iterator.next());
        if (next === 'stopped') return;
        if (next === 'expired') {
          await push({ errors: refusal(why) });
          return;
        }
        if (next.done) return;
        await push(next.value);
      }
    } finally {
      cancelExpiry?.();
      stop();
      await iterator.return?.();
    }
  });
}

/** One admitted operation: `live` once its subscription hears every later change (then the gauge counts it). */
interface Slot {
  live: boolean;
}

/** The operations running on one client connection; `close()` when the client goes away. */
export class OperationConnection {
  private readonly ids = new Map<string, Slot>();
  private closed = false;

  constructor(
    private readonly core: GraphQLOperations,
    private readonly checker: OperationChecker,
    readonly principal: Principal,
    private readonly transport: StreamTransport,
    private readonly maxOperations: number,
  ) {}

  /**
   * Takes a slot for operation `id` and checks it: the rate limit, parse and validation, what the
   * transport carries (before anything else is counted, as Apollo refuses a mutation over GET),
   * scopes, the payout quota. Admitted, it holds its slot until `release(id)` or `close()`, and
   * gateway_subscriptions_active counts it from when its subscription is live; refused, it holds nothing.
   */
  async admit(
    id: string,
    request: OperationRequest,
    headers: IncomingHttpHeaders = {},
    carries?: Carries,
  ): Promise<Admission> {
    if (this.closed) return { errors: refusal(unauthenticated('The connection is closed')) };
    // The slot is taken before the first await: operations that arrive together cannot all pass the check.
    if (this.ids.has(id)) return { errors: refusal(badRequest(`Operation ${id} is already running`)) };
    if (this.ids.size >= this.maxOperations) return { errors: refusal(tooManyOperations(this.maxOperations)) };
    // Across the client's connections and transports: many sockets cannot multiply the per-connection cap.
    if (!this.core.takeClientPlace(this.principal.quotaKey))
      return { errors: refusal(tooManyClientOperations(this.core.maxOperationsPerClient)) };
    const slot: Slot = { live: false };
    this.ids.set(id, slot);
    let admission: Admission;
    try {
      admission = await this.check(id, slot, request, headers, carries);
    } catch (error) {
      this.release(id);
      throw error;
    }
    // Refused, it gives its slot back (nothing to give when close() has already counted it out).
    if ('errors' in admission) this.release(id);
    return admission;
  }

  /** admit's checks once the slot is held; a refusal here leaves the slot for admit to give back. */
  private async check(
    id: string,
    slot: Slot,
    request: OperationRequest,
    headers: IncomingHttpHeaders,
    carries: Carries | undefined,
  ): Promise<Admission> {
    const { rateLimit, metrics, schema } = this.core.serving;
    const retryAfter = await rateLimit.retryAfter(this.principal.quotaKey);
    if (retryAfter !== undefined) return { errors: refusal(clientRateLimited(retryAfter)) };
    // The client went away while the quota was checked.
    if (this.closed) return { errors: refusal(unauthenticated('The connection is closed')) };
    // Trusted documents first: an operation sent by its id has no query text of its own.
    const checked = this.checker.checkRequest(request, headers);
    if ('errors' in checked) return checked;
    const operation = getOperationAST(checked.document, request.operationName);
    if (!operation) return { errors: refusal(badRequest('The document names no operation to run')) };
    const notCarried = carries?.(operation.operation);
    if (notCarried) return { errors: refusal(notCarried) };
    const refused = await operationRefusal(
      rateLimit,
      this.principal,
      schema,
      operation,
      checked.document,
      request.variables,
    );
    if (refused) return { errors: refusal(refused.error) };
    metrics.operations.inc({
      operation: metrics.operationLabels.label(operation.name?.value),
      type: this.transport,
      outcome: 'ok',
    });
    const contextValue = createContext(this.core.serving, this.principal, randomUUID());
    contextValue.onListening = () => {
      // Only the operation that still holds this slot counts: not one released, or gone with its client.
      if (this.ids.get(id) !== slot || slot.live) return;
      slot.live = true;
      metrics.subscriptions.inc();
    };
    noteClientTrace(contextValue, request.extensions, headers);
    return {
      args: {
        schema,
        document: checked.document,
        operationName: request.operationName,
        variableValues: request.variables,
        contextValue,
      },
    };
  }

  /** The operation ended (completed, failed or stopped by the client). */
  release(id: string): void {
    const slot = this.ids.get(id);
    if (!slot) return;
    if (slot.live) this.core.serving.metrics.subscriptions.dec();
    this.ids.delete(id);
    this.core.freeClientPlaces(this.principal.quotaKey);
  }

  /** The client went away: every operation still counted ends with it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.core.serving.metrics.subscriptions.dec([...this.ids.values()].filter((slot) => slot.live).length);
    this.core.freeClientPlaces(this.principal.quotaKey, this.ids.size);
    this.ids.clear();
  }
}
