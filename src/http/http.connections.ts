import { Server } from 'node:http';
import { Socket } from 'node:net';

/**
 * Refuses a client address's connection beyond `max` open at once (HTTP keep-alive and websockets
 * alike), so one client cannot hold every socket. Behind a load balancer every connection comes
 * from the balancer's address: raise the cap, or set it to 0 (no cap) there.
 */
export function limitConnectionsPerAddress(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
