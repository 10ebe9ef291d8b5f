import { CodedError } from '../shared/problem';

/** The gateway closes a websocket with 4403 when its token is refused, expired or revoked: its UNAUTHENTICATED. */
export const FORBIDDEN_CLOSE = 4403;

export interface Close {
  code: number;
  reason: string;
}

/** A websocket close event's code and reason, when `event` is one. */
export function closeOf(event: unknown): Close | undefined {
  if (typeof event !== 'object' || event === null || !('code' in event) || typeof event.code !== 'number')
    return undefined;
  return { code: event.code, reason: 'reason' in event && typeof event.reason === 'string' ? event.reason : '' };
}

/** A close as an error with the gateway's reason and a code: UNAUTHENTICATED for 4403, else WS_<close code>. */
export function closeError({ code, reason }: Close): CodedError {
  return new CodedError(
    reason ? `The live connection closed: ${reason}` : 'The live connection closed',
    code === FORBIDDEN_CLOSE ? 'UNAUTHENTICATED' : `WS_${code}`,
  );
}
