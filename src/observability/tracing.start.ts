import type { TracingSdk } from './tracing.sdk';

/** Loads and starts the OpenTelemetry SDK only when tracing is on: off, not one of its modules is read. */
export async function startTracing(settings: {
  enabled: boolean;
  protocol: 'http/json' | 'http/protobuf';
}): Promise<TracingSdk | undefined> {
  if (!settings.enabled) return undefined;
  const { startTracingSdk } = await import('./tracing.sdk.js');
  return startTracingSdk(settings.protocol);
}
