import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { percentile } from './bench.stats';

export interface LoadRequest {
  headers: Record<string, string>;
  body: string;
}

export interface LoadOptions {
  url: string;
  connections: number;
  /** Run for this long… */
  seconds?: number;
  /** …or until this many requests are answered. */
  amount?: number;
  /** The next request to send; called once per request, so each can be unique. */
  next: () => LoadRequest;
  /** A 2xx whose body still means failure (GraphQL errors). */
  isFailure?: (body: string) => boolean;
}

export interface LoadResult {
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** 2xx answers that carried a failure. */
  badBodies: number;
  seconds: number;
  /** Successful requests per second. */
  perSec: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * autocannon with a fresh body per request (setupRequest). Latencies are collected from each
 * response with sub-millisecond precision: autocannon's own histogram counts whole milliseconds.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let badBodies = 0;
  const { isFailure } = opts;
  const request: autocannon.Request = {
    setupRequest: (req) => {
      const next = opts.next();
      return { ...req, headers: next.headers, body: next.body };
    },
    ...(isFailure
      ? {
          onResponse: (status: number, body: string) => {
            if (status >= 200 && status < 300 && isFailure(body)) badBodies += 1;
          },
        }
      : {}),
  };
  // autocannon ends a run only at its next 1 s sample tick, so its own duration overstates short runs:
  // throughput is timed here, from the start to the last answer.
  const startedAt = performance.now();
  let lastAnswerAt = startedAt;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.url,
        method: 'POST',
        connections: opts.connections,
        ...(opts.amount === undefined ? { duration: opts.seconds ?? 5 } : { amount: opts.amount }),
        requests: [request],
      },
      (error: unknown, res: autocannon.Result) =>
        error ? reject(error instanceof Error ? error : new Error(JSON.stringify(error))) : resolve(res),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      lastAnswerAt = performance.now();
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  const ok = result['2xx'] - badBodies;
  const seconds = (lastAnswerAt - startedAt) / 1000;
  return {
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    badBodies,
    seconds,
    perSec: seconds > 0 ? ok / seconds : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
