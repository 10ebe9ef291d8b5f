import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation, UndiciRequest } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { useTracer } from './tracing.spans';

/** What a gateway needs to stop tracing cleanly: the spans still queued are sent first. */
export interface TracingSdk {
  shutdown(): Promise<void>;
}

/**
 * A URL as a span may show it: no query, and the path token of a callback address hidden (it is
 * the credential of the merchant's callbacks). A relay's client-chosen URL gets the same treatment.
 */
function safeUrl(request: UndiciRequest): Record<string, string> {
  let path = request.path.split('?')[0];
  path = path.replace(/\/callbacks\/[^/]+/, '/callbacks/[redacted]');
  return { 'url.full': `${request.origin}${path}`, 'url.path': path, 'url.query': '' };
}

/**
 * The official OpenTelemetry SDK, started only when an OTEL_ variable asks for it (tracing.start.ts).
 * The exporter, sampler, resource and batching read the standard variables themselves:
 * OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*; OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL picks JSON (default) or
 * protobuf. Must run before pg is loaded, so its queries are hooked.
 */
export function startTracingSdk(protocol: 'http/json' | 'http/protobuf'): TracingSdk {
  // OTEL_SERVICE_NAME (read by envDetector) wins over the gateway's own name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'payout-gateway' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = protocol === 'http/protobuf' ? new OTLPProtoTraceExporter() : new OTLPTraceExporter();
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // The W3C trace context propagator and the AsyncLocalStorage context manager.
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Only calls made inside a gateway span (an operation, a callback, a relay attempt) get one.
      new UndiciInstrumentation({ requireParentforSpans: true, startSpanHook: safeUrl }),
      // PostgreSQL statements as written (placeholders, never their values: those hold records and accounts).
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  useTracer(provider.getTracer('payout-gateway'));
  return {
    async shutdown() {
      useTracer(undefined);
      unregister();
      await provider.shutdown();
    },
  };
}
