import { createServer, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { AuditCheckpoint } from '../../src/disbursements/audit.keys';

export interface Witness {
  url: string;
  /** Every checkpoint it took, in order (one line of the checkpoint file's format each). */
  kept(): AuditCheckpoint[];
  /** The `authorization` header of every request it was sent. */
  authorizations(): (string | undefined)[];
  /** While down, every request is answered 503 and nothing is kept. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

const read = async (req: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of req) body += (chunk as Buffer).toString();
  return body;
};

/**
 * A witness as AUDIT_WITNESS_URL describes one, on a free port: a POST of JSON lines appends them
 * (2xx), a GET answers every line kept. With `token`, a request without `Bearer <token>` is 401.
 */
export async function startWitness(token?: string): Promise<Witness> {
  const lines: string[] = [];
  const authorizations: (string | undefined)[] = [];
  let down = false;
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    void read(req).then((body) => {
      if (down) return void res.writeHead(503).end();
      if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        return void res.end(lines.map((line) => `${line}\n`).join(''));
      }
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/x-ndjson')
        return void res.writeHead(400).end();
      lines.push(...body.split('\n').filter((line) => line.trim() !== ''));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkpoints`,
    kept: () => lines.map((line) => JSON.parse(line) as AuditCheckpoint),
    authorizations: () => [...authorizations],
    setDown: (value) => {
      down = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
