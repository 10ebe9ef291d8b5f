import { CloseCode, Context, MessageType, stringifyMessage } from 'graphql-ws';
import { Extra } from 'graphql-ws/use/ws';
import { tokenExpired } from '../auth/auth.errors';

/** setTimeout fires at once for delays past 2^31-1 ms (24.8 days); longer waits are taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const expired = tokenExpired();
const EXPIRED = { message: expired.message, extensions: { code: expired.code } };

/**
 * Ends a websocket connection when its credential stops being accepted: each running operation
 * first gets an error saying so, then the socket closes with 4403. Returns the cancel, for onClose.
 */
export function closeOnExpiry(
  ctx: Context<Record<string, unknown> | undefined, Extra>,
  acceptedUntil: number,
): () => void {
  const expire = () => {
    const { socket } = ctx.extra;
    for (const id of Object.keys(ctx.subscriptions)) {
      socket.send(stringifyMessage<MessageType.Error>({ type: MessageType.Error, id, payload: [EXPIRED] }));
    }
    socket.close(CloseCode.Forbidden, 'Token expired');
  };
  return atTime(acceptedUntil, expire);
}

/**
 * Calls `fire` once the time `at` (ms since the epoch) comes, however far off; returns the cancel.
 * The timer never keeps the process up: the connection or stream it ends clears it.
 */
export function atTime(at: number, fire: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = at - Date.now();
    timer = setTimeout(left > MAX_TIMER_MS ? arm : fire, Math.min(Math.max(left, 0), MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
