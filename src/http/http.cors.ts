import { IncomingMessage, ServerResponse } from 'node:http';

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
