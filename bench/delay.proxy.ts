import { AddressInfo, createServer, Server, Socket, connect } from 'node:net';

/**
 * A TCP proxy that holds every chunk `delayMs` before passing it on, each way, in order: the
 * distance between the gateway and PostgreSQL in another availability zone (about 1 ms each way),
 * on loopback. With 0 it passes chunks on at once (the same path without the distance).
 */
export interface DelayProxy {
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  close(): Promise<void>;
}

function delayed(from: Socket, to: Socket, delayMs: number): void {
  from.on('data', (chunk: Buffer) => {
    if (delayMs === 0) to.write(chunk);
    // Chunks keep their order: every timer of one delay fires in the order it was set.
    else setTimeout(() => to.writable && to.write(chunk), delayMs);
  });
  from.on('end', () => setTimeout(() => to.end(), delayMs));
  from.on('error', () => to.destroy());
}

export async function startDelayProxy(target: { host: string; port: number }, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    delayed(client, upstream, delayMs);
    delayed(upstream, client, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
