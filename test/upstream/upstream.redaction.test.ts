import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { ProviderError } from '../../src/disbursements/disbursement.ports';
import { createLogger } from '../../src/observability/pino.logger';
import { UpstreamClient } from '../../src/upstream/upstream.client';

/** A provider that echoes every header it got, callbackUrl included, in its error message. */
let echo: Server;
let url: string;
beforeAll(async () => {
  echo = createServer((req, res) => {
    req.resume();
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        message: `bad request, headers were ${JSON.stringify(req.headers)} and webhook secret whsec_c2VjcmV0LXdlYmhvb2s=`,
      }),
    );
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => echo.close(r)));

it('removes every secret the gateway knows from provider text, before it reaches a client or a log line', async () => {
  const callbackToken = 'cb-token-0123456789abcdef';
  const secrets = [
    'merchant-key-1',
    callbackToken,
    'client-token-0123456789',
    'whsec_c2VjcmV0LXdlYmhvb2s=',
    'c2VjcmV0LXdlYmhvb2s=',
  ];
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const client = new UpstreamClient({
    baseUrl: url,
    timeoutMs: 2000,
    callbackUrl: () => `http://gateway.test/callbacks/${callbackToken}`,
    secrets,
    logger: createLogger({ level: 'info', secrets, destination: sink }),
  });
  try {
    const error = await client
      .create(
        { id: 'm', apiKey: 'merchant-key-1' },
        { channel: 'MOBILE_MONEY', referenceId: 'r1', amount: '1', currency: 'ZMW', accountNumber: '260971234567' },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    const message = (error as ProviderError).message;
    expect(message).toMatch(/callbacks/); // the echo did arrive
    for (const secret of secrets) {
      expect(message).not.toContain(secret);
      for (const line of lines) expect(line).not.toContain(secret);
    }
  } finally {
    await client.close();
  }
});

it('removes a secret whole even when the merchant key is part of it', async () => {
  // The callback token contains the merchant key: scrubbing the key on its own first would leave the token's other parts.
  const apiKey = 'merchant-key-2';
  const callbackToken = `cb-${apiKey}-token`;
  const client = new UpstreamClient({
    baseUrl: url,
    timeoutMs: 2000,
    callbackUrl: () => `http://gateway.test/callbacks/${callbackToken}`,
    secrets: [callbackToken],
    logger: createLogger({ level: 'silent', secrets: [] }),
  });
  try {
    const error = await client
      .create(
        { id: 'm', apiKey },
        { channel: 'MOBILE_MONEY', referenceId: 'r2', amount: '1', currency: 'ZMW', accountNumber: '260971234567' },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    const message = (error as ProviderError).message;
    expect(message).toContain('/callbacks/[redacted]"');
    expect(message).not.toContain('cb-');
  } finally {
    await client.close();
  }
});
