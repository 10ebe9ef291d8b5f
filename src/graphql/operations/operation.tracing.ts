import { ExecutionArgs, ExecutionResult, getOperationAST } from 'graphql';
import { IncomingHttpHeaders } from 'node:http';
import {
  activeSpan,
  Context,
  contextFromHeaders,
  Span,
  SpanKind,
  traced,
  tracingOn,
} from '../../observability/tracing.spans';
import { GatewayContext } from '../gateway.context';

/**
 * What an operation's span shows: its name and type, and the merchant. Never the document or the
 * variables: they hold account numbers and amounts.
 */
export function describeOperationSpan(
  span: Span | undefined,
  type: string,
  name: string,
  merchantId: string | undefined,
): void {
  if (!span) return;
  span.updateName(`${type} ${name}`);
  span.setAttributes({
    'graphql.operation.type': type,
    'graphql.operation.name': name,
    ...(merchantId !== undefined && { 'merchant.id': merchantId }),
  });
}

/** Adds the operation's description to the span of the HTTP request serving it (see http.transport.ts). */
export function describeActiveOperation(
  type: string,
  name: string,
  merchantId: string | undefined,
  outcome: string,
): void {
  const span = activeSpan();
  describeOperationSpan(span, type, name, merchantId);
  span?.setAttribute('graphql.outcome', outcome);
}

/** The client's trace of a streaming operation, by its context object: noted at admission, continued when it runs. */
const clientTraces = new WeakMap<object, Context>();

/**
 * A streaming client's W3C traceparent, from the operation's `extensions.traceparent` or else the
 * request's header (a websocket's upgrade: browsers cannot set one there); nothing is done when tracing is off.
 */
export function noteClientTrace(contextValue: object, extensions: unknown, headers: IncomingHttpHeaders): void {
  if (!tracingOn()) return;
  const given =
    typeof extensions === 'object' && extensions !== null
      ? (extensions as { traceparent?: unknown }).traceparent
      : undefined;
  const traceparent = typeof given === 'string' ? given : headers.traceparent;
  if (traceparent) clientTraces.set(contextValue, contextFromHeaders({ traceparent }));
}

type Outcome = ExecutionResult | AsyncIterable<ExecutionResult>;

/**
 * Over graphql-ws, multipart and server-sent events, one span per operation around its execution
 * (for a subscription: setting it up and its first state; its later events are the publish spans
 * of the payouts it follows).
 */
export function tracedExecution(
  execute: (args: ExecutionArgs) => Outcome | Promise<Outcome>,
): (args: ExecutionArgs) => Promise<Outcome> {
  return (args) => {
    const operation = getOperationAST(args.document, args.operationName);
    const type = operation?.operation ?? 'unknown';
    const name = operation?.name?.value ?? 'anonymous';
    const merchantId = (args.contextValue as GatewayContext | undefined)?.merchant.id;
    const parent = clientTraces.get(args.contextValue as object);
    return traced(`${type} ${name}`, { kind: SpanKind.SERVER, parent }, async (span) => {
      describeOperationSpan(span, type, name, merchantId);
      return await execute(args);
    });
  };
}
