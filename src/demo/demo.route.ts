import { IncomingMessage, ServerResponse } from 'node:http';

/** GET /demo: the demo page (placeholder until the page lands). */
export function handleDemo(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>Payout demo</title><p>Demo page coming.</p>');
}
