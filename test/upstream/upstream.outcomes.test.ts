import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ProviderError } from '../../src/disbursements/disbursement.ports';
import { createLogger } from '../../src/observability/pino.logger';
import { UpstreamClient } from '../../src/upstream/upstream.client';

/** A provider (or a proxy in front of it) answering every request with the status the test asks for. */
let status = 500;
let server: Server;
let client: UpstreamClient;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `status ${status}` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = new UpstreamClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    timeoutMs: 2000,
    callbackUrl: () => 'http://gateway.test/callbacks/x',
    logger: createLogger({ level: 'silent', secrets: [] }),
  });
});
afterAll(async () => {
  await client.close();
  await new Promise((r) => server.close(r));
});

const merchant = { id: 'm1', apiKey: 'key-1' };
const request = {
  channel: 'MOBILE_MONEY' as const,
  referenceId: 'ref-1',
  amount: '10',
  currency: 'ZMW',
  accountNumber: '260971234567',
};

it.each<[number, ProviderError['kind']]>([
  [500, 'server-error'],
  [503, 'server-error'],
  // A proxy's word that the provider did not answer it in time: the create may still be on its way in.
  [502, 'unknown'],
  [504, 'unknown'],
])('a create answered %i fails as %s', async (answered, kind) => {
  status = answered;
  await expect(client.create(merchant, request)).rejects.toMatchObject({ kind });
});

it('a status check answered 504 changes nothing: it fails as the provider being unavailable', async () => {
  status = 504;
  await expect(client.checkStatus(merchant, 'ref-1')).rejects.toMatchObject({ kind: 'unavailable' });
});
