import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** A span as the OTLP/HTTP JSON export carries it, flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  service: string;
}

type KeyValue = { key: string; value: Record<string, unknown> };
type Export = {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, 'attributes' | 'links' | 'service'> & {
        attributes?: KeyValue[];
        links?: ReceivedSpan['links'];
      })[];
    }[];
  }[];
};

/** An attribute's value whatever its OTLP type (stringValue, intValue, boolValue...). */
function valueOf(value: Record<string, unknown>): unknown {
  return Object.values(value)[0];
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

export interface OtlpReceiver {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for a gateway exporting here. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every JSON request body as received, for leak checks. */
  bodies: string[];
  /** Every protobuf request body (not decoded: its strings are plain UTF-8 within it). */
  protobufBodies: Buffer[];
  close(): Promise<void>;
}

/** A real OTLP/HTTP receiver on a free port: decodes the JSON trace exports POSTed to /v1/traces. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const protobufBodies: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      if (
        req.method === 'POST' &&
        req.url === '/v1/traces' &&
        req.headers['content-type'] === 'application/x-protobuf'
      ) {
        protobufBodies.push(raw);
        // An empty ExportTraceServiceResponse: nothing rejected.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !/json/.test(req.headers['content-type'] ?? '')) {
        res.writeHead(415).end();
        return;
      }
      bodies.push(text);
      const body = JSON.parse(text) as Export;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(attributes(resourceSpans.resource?.attributes)['service.name']);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({ ...span, attributes: attributes(span.attributes), links: span.links ?? [], service });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    protobufBodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
