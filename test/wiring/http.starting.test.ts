import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { answerWhileStarting } from '../../src/http/http.starting';

/**
 * The gateway binds its port before it serves it. A client that arrives in between (a browser's
 * dashboard reconnecting to a restarted gateway) must be answered at once, so it retries, and not be
 * left waiting: Node leaves a request or an upgrade with no listener unanswered.
 */
describe('a client that reaches the port while the gateway starts', () => {
  let server: Server;
  let url: string;
  let serving: () => void;

  beforeEach(async () => {
    server = createServer();
    serving = answerWhileStarting(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** How a websocket attempt ends: opened, or refused with an HTTP status. */
  const connect = () =>
    new Promise<string>((resolve) => {
      const ws = new WebSocket(`ws://${url}/graphql`, 'graphql-transport-ws');
      ws.on('open', () => {
        ws.close();
        resolve('open');
      });
      ws.on('unexpected-response', (_req, res) => {
        resolve(`refused ${res.statusCode} retry-after ${res.headers['retry-after']}`);
        ws.terminate();
      });
      ws.on('error', () => undefined);
    });

  it('is answered 503 with Retry-After, over HTTP and over a websocket, instead of waiting', async () => {
    const res = await fetch(`http://${url}/graphql`, { method: 'POST', body: '{}' });
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/starting/) });
    expect(await connect()).toBe('refused 503 retry-after 1');
  });

  it('reaches the websocket server as soon as one is attached, and the routes once serving', async () => {
    const wss = new WebSocketServer({ server, path: '/graphql' });
    expect(await connect()).toBe('open');
    server.on('request', (_req, res) => res.end('routed'));
    serving();
    const res = await fetch(`http://${url}/anything`);
    expect([res.status, await res.text()]).toEqual([200, 'routed']);
    await new Promise((resolve) => wss.close(resolve));
  });
});
