import { errors } from 'undici';
import { ProviderError } from '../disbursements/disbursement.ports';

/** Network errors raised before a byte of the request could reach the provider. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return codeOf((error as { cause?: unknown }).cause);
}

/** A transport failure: `unavailable` when nothing left this process, otherwise `unknown`. */
export function transportFailure(error: unknown): ProviderError {
  const code = codeOf(error);
  if (error instanceof errors.ConnectTimeoutError || (code && NOT_SENT_CODES.has(code))) {
    return new ProviderError('unavailable', `provider unreachable (${code ?? 'connect timeout'})`);
  }
  if (error instanceof Error && error.name === 'TimeoutError')
    return new ProviderError('unknown', 'provider call timed out');
  return new ProviderError(
    'unknown',
    `provider connection failed after sending (${code ?? (error instanceof Error ? error.name : 'error')})`,
  );
}

/** Seconds from a Retry-After header (seconds or an HTTP date); at least 1. */
export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return 60;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? 60 : Math.max(1, Math.ceil((date - now) / 1000));
}

/** The provider's own words from an error body of unknown shape, trimmed and with every secret removed. */
export function providerMessage(body: string, scrub: (text: string) => string): { message: string; field?: string } {
  let message = body;
  let field: string | undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const o = parsed as Record<string, unknown>;
      const firstError = Array.isArray(o.errors) ? (o.errors[0] as Record<string, unknown> | undefined) : undefined;
      const candidate = o.message ?? o.detail ?? o.error_description ?? firstError?.message ?? o.error;
      if (typeof candidate === 'string') message = candidate;
      else if (Array.isArray(candidate) && typeof candidate[0] === 'string') message = candidate.join('; ');
      const f = o.field ?? firstError?.field;
      if (typeof f === 'string' && /^[A-Za-z]{1,40}$/.test(f)) field = f;
    }
  } catch {
    // Not JSON: the text itself is the message.
  }
  // Removed before trimming, so no cut can leave part of a secret behind.
  message = scrub(message);
  message = message.replace(/\s+/g, ' ').trim().slice(0, 300);
  return { message: message || 'no reason given', field };
}
