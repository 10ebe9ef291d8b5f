import {
  Attributes,
  context,
  Context,
  Link,
  propagation,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  Tracer,
} from '@opentelemetry/api';

export { ROOT_CONTEXT, SpanKind };
export type { Context, Span };

/**
 * The gateway's spans, through the OpenTelemetry API only. Until an SDK hands a tracer to
 * useTracer (tracing.sdk.ts, loaded only when an OTEL_ variable asks for it), every function here
 * returns at its first line: no span objects, no context lookups, no header parsing.
 */
let tracer: Tracer | undefined;

/** Called by tracing.sdk.ts once the SDK is registered; undefined turns spans off again. */
export function useTracer(next: Tracer | undefined): void {
  tracer = next;
}

export function tracingOn(): boolean {
  return tracer !== undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  /** Never a secret, an input value or an account number: names, ids the client chose, counts, outcomes. */
  attributes?: Attributes;
  links?: Link[];
  /** Default: the active context. */
  parent?: Context;
}

/**
 * Runs `work` in a new active span when tracing is on (else just runs it). The span ends when the
 * work settles; a failure marks it ERROR with the error's code or class name, never its message.
 */
export function traced<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(undefined);
  const { parent, ...spanOptions } = options;
  return tracer.startActiveSpan(name, spanOptions, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', errorType(error));
      throw error;
    } finally {
      span.end();
    }
  });
}

function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    return error.constructor.name;
  }
  return typeof error;
}

/** The span of the work under way (to name it or add attributes once they are known); undefined when off. */
export function activeSpan(): Span | undefined {
  return tracer ? trace.getActiveSpan() : undefined;
}

/** The context a W3C `traceparent` (and `tracestate`) from a client continues; an empty one (a new trace) without it. */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): Context {
  if (!tracer) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, {
    keys: (carrier) => Object.keys(carrier),
    get: (carrier, key) => carrier[key],
  });
}

/** The active span's context as a W3C traceparent, to store with a record; undefined when off. */
export function currentTraceparent(): string | undefined {
  if (!tracer) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** A link to the trace a stored traceparent names (the create of a payout); none when off, absent or malformed. */
export function linksTo(traceparent: string | undefined): Link[] {
  if (!tracer || traceparent === undefined) return [];
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return spanContext && trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : [];
}

/** `traceId` and `spanId` for a log line written inside a span (a new object: pino merges into it); else undefined. */
export function logTraceIds(): { traceId: string; spanId: string } | undefined {
  if (!tracer) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
