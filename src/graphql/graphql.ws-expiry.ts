import { CloseCode, Context, MessageType, stringifyMessage } from 'graphql-ws';
import { Extra } from 'graphql-ws/use/ws';
import { tokenExpired } from '../disbursements/disbursement.errors';

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
  let timer: NodeJS.Timeout;
  const expire = () => {
    const { socket } = ctx.extra;
    for (const id of Object.keys(ctx.subscriptions)) {
      socket.send(stringifyMessage<MessageType.Error>({ type: MessageType.Error, id, payload: [EXPIRED] }));
    }
    socket.close(CloseCode.Forbidden, 'Token expired');
  };
  const arm = () => {
    const left = acceptedUntil - Date.now();
    timer = setTimeout(left > MAX_TIMER_MS ? arm : expire, Math.min(Math.max(left, 0), MAX_TIMER_MS));
    // The socket's own close clears it; a timer alone never keeps the process up.
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
