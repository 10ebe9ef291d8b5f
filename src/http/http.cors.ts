import { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Whether a browser page on the request's `Origin` may use the gateway: a client that sends no
 * Origin is not a browser (CORS is a browser's rule), a page served by the gateway's own host is
 * same-origin, and any other origin must be listed in CORS_ORIGINS. The scheme is not compared
 * with the host's: behind a TLS-terminating balancer the gateway itself sees plain http.
 */
export function originAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (allowed.has(origin)) return true;
  try {
    return req.headers.host !== undefined && new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/**
 * CORS for the allow-listed origins only. Returns true when the request was a preflight and is answered.
 * Other origins get no CORS headers, so browsers refuse to hand them the response.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  const ok = origin !== undefined && allowed.has(origin);
  if (ok) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
  }
  if (req.method !== 'OPTIONS') return false;
  if (ok) {
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    res.setHeader(
      'access-control-allow-headers',
      'authorization, content-type, apollo-require-preflight, x-apollo-operation-name, x-request-id',
    );
    res.setHeader('access-control-max-age', '600');
  }
  res.writeHead(ok ? 204 : 403);
  res.end();
  return true;
}
