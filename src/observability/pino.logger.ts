import pino, { DestinationStream, Logger } from 'pino';
import pretty from 'pino-pretty';
import { currentRequestId } from './request.context';
import { redactSecrets, SecretList } from './secret.redaction';
import { logTraceIds } from './tracing.spans';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Every secret the gateway holds (src/config.secrets.ts): removed from every line, whatever field it hides in (those a reload adds too). */
  secrets: SecretList | readonly string[];
  /** Where lines go; default stdout (pino's own sonic-boom writer), human-readable when it is a terminal. */
  destination?: NodeJS.WritableStream;
}

/** Blanks out secret values in a serialized line, as the provider's text is scrubbed; a line with none is not copied. */
function redactor(secrets: SecretList | readonly string[]): (line: string) => string {
  const list = secrets instanceof SecretList ? secrets : new SecretList(secrets);
  return (line) => redactSecrets(line, list.forms());
}

const CENSOR = '[redacted]';
type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;

/** A copy of an object or error with the given fields replaced; an error keeps its class, message and stack. */
function withFields(value: Fields, fields: Fields): Fields {
  if (!(value instanceof Error)) return { ...value, ...fields };
  const copy = Object.create(Object.getPrototypeOf(value) as object) as Fields;
  return Object.assign(copy, value, { message: value.message, stack: value.stack }, fields);
}

/** `headers.authorization`, `headers["x-api-key"]` and `apiKey` of one value blanked; the value itself when it has none. */
function censoredValue(value: Fields): Fields {
  const fields: Fields = {};
  let found = false;
  if ('apiKey' in value) {
    fields.apiKey = CENSOR;
    found = true;
  }
  const headers = value.headers;
  if (isObject(headers) && ('authorization' in headers || 'x-api-key' in headers)) {
    const censored: Fields = { ...headers };
    if ('authorization' in censored) censored.authorization = CENSOR;
    if ('x-api-key' in censored) censored['x-api-key'] = CENSOR;
    fields.headers = censored;
    found = true;
  }
  return found ? withFields(value, fields) : value;
}

/**
 * The redaction paths `apiKey`, `*.apiKey`, `*.headers.authorization` and `*.headers["x-api-key"]`,
 * checked in place of pino's path redaction (which copied every line's object): a line with none of
 * them (every hot-path line) is passed through untouched, and a caller's object is never changed.
 */
function censored(line: Fields): Fields {
  let out = line;
  if ('apiKey' in line) out = { ...line, apiKey: CENSOR };
  for (const key in line) {
    const value = line[key];
    if (!isObject(value)) continue;
    const safe = censoredValue(value);
    if (safe === value) continue;
    if (out === line) out = { ...line };
    out[key] = safe;
  }
  return out;
}

export function createLogger(opts: LoggerOptions): Logger {
  const redact = redactor(opts.secrets);
  // Without a destination pino writes stdout through sonic-boom, synchronously: no stream machinery per line.
  const destination: DestinationStream | undefined =
    opts.destination ?? (process.stdout.isTTY ? pretty({ colorize: true }) : undefined);
  const options: pino.LoggerOptions = {
    level: opts.level,
    base: undefined,
    // Every line written while serving a request carries its id, and inside a span its trace and span ids.
    mixin: () => {
      const requestId = currentRequestId();
      const ids = logTraceIds();
      if (ids) return requestId ? { requestId, ...ids } : ids;
      return requestId ? { requestId } : {};
    },
    formatters: { log: censored },
    // Applied to the finished line, before any destination (pretty printing included) sees it.
    hooks: { streamWrite: redact },
  };
  return destination ? pino(options, destination) : pino(options);
}
