import { connect, Socket } from 'node:net';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config';
import { Stack, startStack } from '../support/stack';

const APP = 'https://app.example';

/** Resolves with how the upgrade ended: `open` once acknowledged by graphql-ws, else the HTTP status. */
function upgrade(url: string, origin?: string): Promise<'open' | number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws', origin ? { origin } : {});
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', () => {
      socket.close();
      resolve('open');
    });
    socket.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('error', () => undefined);
  });
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

function connected(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('websocket Origin', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { CORS_ORIGINS: APP } });
  });
  afterAll(() => stack.close());

  it('refuses a page on an origin not in CORS_ORIGINS with 403', async () => {
    expect(await upgrade(stack.graphqlUrl, 'https://evil.example')).toBe(403);
    expect(await upgrade(stack.graphqlUrl, 'null')).toBe(403);
  });

  it('accepts a listed origin, the same origin, and a client that sends none', async () => {
    expect(await upgrade(stack.graphqlUrl, APP)).toBe('open');
    expect(await upgrade(stack.graphqlUrl, stack.gateway.url)).toBe('open');
    expect(await upgrade(stack.graphqlUrl)).toBe('open');
  });
});

describe('HTTP server limits', () => {
  it('drops a connection whose headers never finish', async () => {
    const stack = await startStack({ env: { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600' } });
    try {
      const socket = await connected(stack.gateway.port);
      socket.on('data', () => undefined);
      socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Slow: ');
      await closed(socket);
      // The server still serves everyone else.
      expect((await fetch(`${stack.gateway.url}/healthz`)).status).toBe(200);
    } finally {
      await stack.close();
    }
  });

  it('refuses connections from one address beyond MAX_CONNECTIONS_PER_IP', async () => {
    const stack = await startStack({ env: { MAX_CONNECTIONS_PER_IP: '5' } });
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 5; i += 1) sockets.push(await connected(stack.gateway.port));
      // Each of the five answers, so the server has counted them all.
      for (const socket of sockets) {
        const answered = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
        socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
        expect(await answered).toMatch(/^HTTP\/1.1 200/);
      }
      const sixth = await connected(stack.gateway.port);
      sixth.on('error', () => undefined);
      await closed(sixth);
      sockets[0].destroy();
      await closed(sockets[0]);
      // Once one is closed, the address may connect again.
      const again = await (async () => {
        for (let attempt = 0; attempt < 50; attempt += 1) {
          const socket = await connected(stack.gateway.port);
          socket.on('error', () => undefined);
          const answer = await new Promise<string | undefined>((resolve) => {
            socket.once('data', (d: Buffer) => resolve(d.toString()));
            socket.once('close', () => resolve(undefined));
            socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
          });
          sockets.push(socket);
          if (answer) return answer;
        }
        return undefined;
      })();
      expect(again).toMatch(/^HTTP\/1.1 200/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await stack.close();
    }
  });

  it('refuses a headers timeout longer than the request timeout at startup, naming it', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS/,
    );
  });
});
