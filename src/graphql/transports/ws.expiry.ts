import { CloseCode, Context, MessageType, stringifyMessage } from 'graphql-ws';
import { Extra } from 'graphql-ws/use/ws';
import { tokenExpired } from '../../auth/auth.errors';
import { atTime } from '../operations/token.expiry';

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
