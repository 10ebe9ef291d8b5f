import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export type Encoding = 'br' | 'gzip' | 'identity';

/**
 * One file of the built console; each encoding made the first time a browser asks for it, then kept.
 * Compressed on libuv's threads (brotli at quality 11 takes about a second for the script): the
 * event loop goes on serving payouts meanwhile, and browsers asking at once share the one result.
 */
export class ConsoleFile {
  private readonly encoded = new Map<Exclude<Encoding, 'identity'>, Promise<Buffer>>();

  constructor(
    readonly type: string,
    private readonly identity: Buffer,
  ) {}

  body(encoding: Encoding): Promise<Buffer> {
    if (encoding === 'identity') return Promise.resolve(this.identity);
    let body = this.encoded.get(encoding);
    if (!body) {
      body =
        encoding === 'br'
          ? brotli(this.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
          : gzipped(this.identity, { level: 9 });
      this.encoded.set(encoding, body);
    }
    return body;
  }
}

export interface ConsoleFiles {
  /** index.html: every console address answers it (the console routes in the browser). */
  page: ConsoleFile;
  /** assets/<hashed name>: immutable, as a new build writes new names. */
  assets: ReadonlyMap<string, ConsoleFile>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Where `vite build` writes the console (console/vite.config.mts), the same from src/ under jest and from dist/. */
export const CONSOLE_BUILD = join(__dirname, '..', '..', 'dist', 'console-app');

function fileOf(path: string): ConsoleFile {
  return new ConsoleFile(TYPES[extname(path)] ?? 'application/octet-stream', readFileSync(path));
}

/** The built console, read once; undefined when it was never built (`npm run build` builds it). */
export function loadConsole(root = CONSOLE_BUILD): ConsoleFiles | undefined {
  const index = join(root, 'index.html');
  if (!existsSync(index)) return undefined;
  const dir = join(root, 'assets');
  const names = existsSync(dir) ? readdirSync(dir) : [];
  return { page: fileOf(index), assets: new Map(names.map((name) => [name, fileOf(join(dir, name))])) };
}
