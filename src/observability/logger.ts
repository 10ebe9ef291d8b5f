import pino, { DestinationStream, Logger } from 'pino';
import pretty from 'pino-pretty';
import { currentRequestId } from './request.context';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Merchant keys and client tokens: removed from every line, whatever field they hide in. */
  secrets: readonly string[];
  /** Where lines go; default stdout (pino's own sonic-boom writer), human-readable when it is a terminal. */
  destination?: NodeJS.WritableStream;
}

/** Blanks out secret values in a serialized line; the common case (no secret in it) allocates nothing. */
function redactor(secrets: readonly string[]): ((line: string) => string) | undefined {
  const needles = secrets.filter((s) => s.length > 0);
  if (needles.length === 0) return undefined;
  return (line) => {
    for (const secret of needles) if (line.includes(secret)) line = line.split(secret).join('[redacted]');
    return line;
  };
}

export function createLogger(opts: LoggerOptions): Logger {
  const redact = redactor(opts.secrets);
  // Without a destination pino writes stdout through sonic-boom, synchronously: no stream machinery per line.
  const destination: DestinationStream | undefined = opts.destination ?? (process.stdout.isTTY ? pretty({ colorize: true }) : undefined);
  const options: pino.LoggerOptions = {
    level: opts.level,
    base: undefined,
    // Every line written while serving a request carries its id.
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
    redact: { paths: ['*.headers.authorization', '*.headers["x-api-key"]', 'apiKey', '*.apiKey'], censor: '[redacted]' },
    // Applied to the finished line, before any destination (pretty printing included) sees it.
    ...(redact && { hooks: { streamWrite: redact } }),
  };
  return destination ? pino(options, destination) : pino(options);
}
