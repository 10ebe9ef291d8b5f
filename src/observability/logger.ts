import { Writable } from 'node:stream';
import pino, { Logger } from 'pino';
import pretty from 'pino-pretty';
import { currentRequestId } from './request.context';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Merchant keys and client tokens: removed from every line, whatever field they hide in. */
  secrets: readonly string[];
  /** Where lines go; default stdout, human-readable when it is a terminal. */
  destination?: NodeJS.WritableStream;
}

/** A stream that blanks out secret values in each serialized line before passing it on. */
function redacting(secrets: readonly string[], out: NodeJS.WritableStream): NodeJS.WritableStream {
  const needles = secrets.filter((s) => s.length > 0);
  if (needles.length === 0) return out;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      let line = chunk.toString();
      for (const secret of needles) if (line.includes(secret)) line = line.split(secret).join('[redacted]');
      out.write(line);
      done();
    },
  });
}

export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? (process.stdout.isTTY ? pretty({ colorize: true }) : process.stdout);
  return pino(
    {
      level: opts.level,
      base: undefined,
      // Every line written while serving a request carries its id, provider calls included.
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
      redact: { paths: ['*.headers.authorization', '*.headers["x-api-key"]', 'apiKey', '*.apiKey'], censor: '[redacted]' },
    },
    redacting(opts.secrets, destination),
  );
}
