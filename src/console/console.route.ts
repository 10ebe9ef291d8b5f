import Negotiator from 'negotiator';
import { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http/http.reply';
import { ConsoleFile, ConsoleFiles, Encoding, loadConsole } from './console.assets';

export const CONSOLE_PATH = '/console';

// Everything from this origin, no inline script or style; 'self' also covers ws(s):// to the same host.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const IMMUTABLE = 'public, max-age=31536000, immutable';
const ENCODINGS: readonly Encoding[] = ['br', 'gzip', 'identity'];
const ASSET_PREFIX = `${CONSOLE_PATH}/assets/`;

/**
 * GET /console and every address under it: the console web app (console/), built by `vite build`.
 * Its assets have hashed names and are cached for a year; the page is revalidated on every load, so
 * a new build is picked up at once. Each answer is brotli or gzip as the browser accepts.
 */
export class ConsoleRoute {
  private files: ConsoleFiles | undefined;

  constructor(private readonly load: () => ConsoleFiles | undefined = loadConsole) {}

  async handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendJson(res, 405, { error: 'Method not allowed' }, { allow: 'GET, HEAD' });
    // Read at the first visit: a gateway nobody opens the console on reads nothing.
    this.files ??= this.load();
    if (!this.files) return sendJson(res, 404, { error: 'The console is not built: run npm run build' });
    if (pathname.startsWith(ASSET_PREFIX)) {
      const asset = this.files.assets.get(pathname.slice(ASSET_PREFIX.length));
      if (!asset) return sendJson(res, 404, { error: 'Not found' });
      return send(req, res, asset, IMMUTABLE);
    }
    return send(req, res, this.files.page, 'no-cache');
  }
}

async function send(req: IncomingMessage, res: ServerResponse, file: ConsoleFile, cacheControl: string): Promise<void> {
  // The smallest the browser accepts; Negotiator alone would take its order, which puts gzip before br.
  const accepted = new Negotiator(req).encodings([...ENCODINGS]);
  const encoding = ENCODINGS.find((e) => accepted.includes(e)) ?? 'identity';
  const body = await file.body(encoding);
  res.writeHead(200, {
    'content-type': file.type,
    'content-length': body.length,
    ...(encoding !== 'identity' && { 'content-encoding': encoding }),
    vary: 'accept-encoding',
    'cache-control': cacheControl,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
