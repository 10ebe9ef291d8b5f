import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Config } from './config';
import { sendJson } from './http/http.reply';
import { GatewayMetrics } from './observability/gateway.metrics';
import { repeatedLine } from './observability/log.throttle';
import { Logger } from './observability/pino.logger';
import { WitnessState } from './audit/audit.witness';
import { Storage } from './app.storage';

export interface HealthParts {
  config: Pick<Config, 'metricsPort' | 'host'>;
  storage: Pick<Storage, 'store' | 'events' | 'problem'>;
  metrics: GatewayMetrics;
  logger: Logger;
  /** The merchants this replica serves now: what waits is counted for them, and what is due of any other apart. */
  merchantIds: () => readonly string[];
  /** Reported, never a failure: `none` when the checkpoints are kept only beside the database. */
  auditWitness: () => WitnessState;
}

export interface Health {
  /** Serves /healthz, /readyz and, where `withMetrics`, /metrics; false when `url` is none of them. */
  respond(res: ServerResponse, url: URL, withMetrics: boolean): Promise<boolean>;
  /** The port of the METRICS_PORT listener, when there is one. */
  metricsPort?: number;
  /** Report not ready from now on (shutdown has begun). */
  stopAccepting(): void;
  /** Closes the METRICS_PORT listener, which reports not ready until then. */
  close(): Promise<void>;
}

/** Health, readiness and metrics: on the API's server, and alone on METRICS_PORT when it is set. */
export async function startHealth(parts: HealthParts): Promise<Health> {
  const { config, metrics } = parts;
  const { store, events, problem } = parts.storage;
  let shuttingDown = false;

  /**
   * Whether this replica can serve: not stopping, its store and pub/sub answer. A provider circuit
   * is not this replica's state (every replica shares the provider, and reads and callbacks work
   * without it): taking the replica out of a balancer would only lose its callback receiver. A
   * database that must not be written (the embedded file replaced under it) is not ready, and says why.
   * Where the audit checkpoints go is said beside, never a reason to be out of a balancer.
   */
  async function readiness(): Promise<{
    ready: boolean;
    checks: Record<string, boolean>;
    problem?: string;
    auditWitness: WitnessState;
  }> {
    const [storeOk, pubsubOk] = await Promise.all([store.healthy(), events.healthy()]);
    const why = problem?.();
    const checks = { notShuttingDown: !shuttingDown, store: storeOk && why === undefined, pubsub: pubsubOk };
    return {
      ready: Object.values(checks).every(Boolean),
      checks,
      ...(why === undefined ? {} : { problem: why }),
      auditWitness: parts.auditWitness(),
    };
  }

  async function respond(res: ServerResponse, url: URL, withMetrics: boolean): Promise<boolean> {
    if (url.pathname === '/healthz') {
      sendJson(res, 200, { status: 'ok' });
      return true;
    }
    if (url.pathname === '/readyz') {
      const state = await readiness();
      sendJson(res, state.ready ? 200 : 503, state);
      return true;
    }
    if (url.pathname === '/metrics' && withMetrics) {
      // The database away (an outage): the waiting gauges keep their last values, the rest is served.
      const now = new Date();
      const waiting = await store.waitingWork(now, parts.merchantIds()).catch(() => undefined);
      if (waiting) {
        metrics.scheduledWaiting.set(waiting.scheduled);
        const overdueMs = waiting.earliestScheduledAt === undefined ? 0 : now.getTime() - waiting.earliestScheduledAt;
        metrics.scheduledOverdue.set(Math.max(0, overdueMs) / 1000);
        metrics.resendsWaiting.set(waiting.resends);
        metrics.dueUnserved.set(waiting.unserved);
      }
      const text = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
      return true;
    }
    return false;
  }

  const metricsServer = config.metricsPort === undefined ? undefined : createServer();
  if (metricsServer) {
    const metricsFailed = repeatedLine(parts.logger, 'error', 'metrics request failed');
    metricsServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://gateway');
      respond(res, url, true)
        .then((served) => {
          if (!served) sendJson(res, 404, { error: 'Not found' });
        })
        .catch((error: unknown) => {
          metricsFailed({ err: error });
          if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error' });
        });
    });
    await new Promise<void>((resolve, reject) => {
      metricsServer.once('error', reject);
      metricsServer.listen(config.metricsPort, config.host, () => resolve());
    });
  }

  return {
    respond,
    metricsPort: metricsServer && (metricsServer.address() as AddressInfo).port,
    stopAccepting() {
      shuttingDown = true;
    },
    async close() {
      if (!metricsServer) return;
      await new Promise<void>((resolve) => {
        metricsServer.close(() => resolve());
        metricsServer.closeAllConnections();
      });
    },
  };
}
