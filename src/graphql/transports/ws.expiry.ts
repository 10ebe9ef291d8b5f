import { CloseCode, Context, MessageType, stringifyMessage } from 'graphql-ws';
import { Extra } from 'graphql-ws/use/ws';
import { tokenExpired, tokenRevoked } from '../../auth/auth.errors';
import { Principal } from '../../auth/client.auth';
import { onCredentialEnd } from '../operations/operation.core';

/**
 * Ends a websocket connection when its credential stops being accepted (its JWT expired, or a
 * reload dropped its shared token): each running operation first gets an error saying so, then
 * the socket closes with 4403. Returns the cancel, for onClose.
 */
export function closeOnExpiry(
  ctx: Context<Record<string, unknown> | undefined, Extra>,
  principal: Pick<Principal, 'acceptedUntil' | 'revoked'>,
): () => void {
  return onCredentialEnd(principal, (why) => {
    const error = why === 'expired' ? tokenExpired() : tokenRevoked();
    const { socket } = ctx.extra;
    const payload = [{ message: error.message, extensions: { code: error.code } }];
    for (const id of Object.keys(ctx.subscriptions)) {
      socket.send(stringifyMessage<MessageType.Error>({ type: MessageType.Error, id, payload }));
    }
    socket.close(CloseCode.Forbidden, why === 'expired' ? 'Token expired' : 'Token revoked');
  });
}
