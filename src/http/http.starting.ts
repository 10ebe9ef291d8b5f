import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { sendJson } from './http.reply';

/** What a client that reaches the port before the gateway serves it is told: come back in a second. */
const STARTING_UPGRADE =
  'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

/**
 * The port is bound before anything serves it (callback URLs need the port), and Node leaves a request
 * or a websocket upgrade with no listener waiting, unanswered, until a timeout: a browser's socket then
 * stays "connecting" and never retries. Until the returned function is called (in the same turn as
 * the routes attach), each is answered 503 with Retry-After at once; an upgrade the websocket server,
 * attached earlier in start-up, takes is left to it.
 */
export function answerWhileStarting(httpServer: Server): () => void {
  const request = (_req: IncomingMessage, res: ServerResponse) => {
    sendJson(
      res,
      503,
      { error: 'The gateway is starting; retry in a second' },
      { 'retry-after': '1', connection: 'close' },
    );
  };
  const upgrade = (_req: IncomingMessage, socket: Duplex) => {
    if (httpServer.listenerCount('upgrade') > 1) return;
    socket.end(STARTING_UPGRADE);
  };
  httpServer.on('request', request);
  httpServer.on('upgrade', upgrade);
  return () => {
    httpServer.off('request', request);
    httpServer.off('upgrade', upgrade);
  };
}
