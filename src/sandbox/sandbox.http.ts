import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Timers } from './sandbox.timers';

const REASONS = {
  400: 'BAD REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT FOUND',
  405: 'METHOD NOT ALLOWED',
  413: 'PAYLOAD TOO LARGE',
  415: 'UNSUPPORTED MEDIA TYPE',
  429: 'TOO MANY REQUESTS',
  500: 'INTERNAL SERVER ERROR',
} as const;

export type ErrorStatus = keyof typeof REASONS;

/** Body of every error answer; field names the offending request field of a 400. */
export interface ErrorBody {
  status: ErrorStatus;
  error: (typeof REASONS)[ErrorStatus];
  message: string;
  field?: string;
}

/** How the sandbox answers one request; the fault kinds exist to imitate a misbehaving provider. */
export type Answer =
  | { kind: 'json'; status: number; body: object; headers?: Record<string, string> }
  | { kind: 'no-content' }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'malformed'; body: object }
  | { kind: 'trickle'; body: object };

export function errorAnswer(
  status: ErrorStatus,
  message: string,
  field?: string,
  headers?: Record<string, string>,
): Answer {
  const body: ErrorBody = { status, error: REASONS[status], message, ...(field === undefined ? {} : { field }) };
  return { kind: 'json', status, body, headers };
}

const TRICKLE_CHUNKS = 10;
const TRICKLE_STEP_MS = 500;

/** Writes an answer unless the client has gone away in the meantime. */
export function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: Answer, timers: Timers): void {
  if (res.destroyed || res.writableEnded) return;
  switch (answer.kind) {
    case 'json': {
      const text = JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        ...answer.headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
      return;
    }
    case 'no-content':
      res.writeHead(204).end();
      return;
    case 'reset':
      req.socket.destroy();
      return;
    case 'hang':
      // The socket stays open until the client gives up or the sandbox closes.
      return;
    case 'malformed': {
      const text = JSON.stringify(answer.body);
      const cut = text.slice(0, Math.floor(text.length / 2));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(cut) });
      res.end(cut);
      return;
    }
    case 'trickle': {
      // Cut by bytes, as a slow network would, so a chunk may end inside a character.
      const bytes = Buffer.from(JSON.stringify(answer.body));
      const size = Math.ceil(bytes.length / TRICKLE_CHUNKS);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const step = (offset: number): void => {
        if (res.destroyed) return;
        if (offset + size >= bytes.length) {
          res.end(bytes.subarray(offset));
          return;
        }
        res.write(bytes.subarray(offset, offset + size));
        timers.after(TRICKLE_STEP_MS, () => step(offset + size));
      };
      timers.after(TRICKLE_STEP_MS, () => step(0));
      return;
    }
  }
}

/** Reads a request body up to limit bytes; beyond it the rest is discarded and 'too-large' answered. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    return Promise.resolve('too-large');
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Keep the stream flowing without listeners so the rest is dropped and the socket stays usable.
      req.off('data', onData);
      resolve('too-large');
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => reject(new Error('request closed before its body was read')));
  });
}

export function isJsonContentType(header: string | undefined): boolean {
  const mediaType = header?.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json' || (mediaType?.endsWith('+json') ?? false);
}

/** JSON.parse that reports failure instead of throwing. */
export function parseJson(raw: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}
