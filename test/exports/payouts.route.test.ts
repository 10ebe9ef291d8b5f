import { createServer, get, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { ClientAuth } from '../../src/auth/client.auth';
import { ClientRateLimit } from '../../src/auth/client.rate-limit';
import { MerchantRegistry } from '../../src/auth/merchant.registry';
import { loadConfig } from '../../src/config';
import { HistoryEntry } from '../../src/disbursements/disbursement.ports';
import { PayoutExports } from '../../src/exports/payouts.route';
import { createLogger } from '../../src/observability/pino.logger';
import { eventually } from '../support/stack';
import { record } from '../store/store.fixtures';

/** A window with no end of payouts: how many were read so far, and whether the reading was ended. */
class Endless {
  read = 0;
  ended = false;

  async *rows(): AsyncGenerator<HistoryEntry> {
    try {
      for (;;) {
        this.read += 1;
        const payout = record({ referenceId: `ref-${this.read}`, message: 'x'.repeat(100) });
        yield { at: Date.now(), referenceId: payout.referenceId, record: payout };
      }
    } finally {
      this.ended = true;
    }
  }
}

/** Resolves once `count` stops moving: what was read while nobody took more. */
async function settledAt(count: () => number): Promise<number> {
  let last = -1;
  return eventually(
    async () => {
      const now = count();
      if (now === last) return now;
      last = now;
      return undefined;
    },
    100,
    100,
  );
}

describe('GET /exports/payouts.csv streaming', () => {
  let server: Server;
  let exports: PayoutExports;
  let source: Endless;
  const responses: IncomingMessage[] = [];

  beforeAll(async () => {
    const config = loadConfig({ UPSTREAM_BASE_URL: 'https://provider.invalid', MERCHANT_API_KEY: 'key' });
    const logger = createLogger({
      level: 'silent',
      secrets: [],
      destination: new Writable({ write: (_chunk, _enc, done) => done() }),
    });
    // Open access, as the embedded sandbox gives it: the single merchant with every scope.
    const merchants = MerchantRegistry.fromConfig(config, true);
    exports = new PayoutExports({
      auth: new ClientAuth({ merchants, openAccess: true, logger }),
      rateLimit: ClientRateLimit.inMemory(0),
      exporter: { exportPayouts: () => source.rows() },
      logger,
      // Fewer in all than per merchant, so the gateway's own bound shows with the one open-access merchant.
      limits: { perMerchant: 3, inAll: 2 },
    });
    server = createServer((req, res) => void exports.handle(req, res, new URL(req.url ?? '/', 'http://gateway')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  beforeEach(() => {
    source = new Endless();
  });

  afterEach(() => {
    for (const response of responses.splice(0)) response.destroy();
  });

  afterAll(async () => {
    await exports.close();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A download whose body nobody reads yet. */
  function open(): Promise<IncomingMessage> {
    const { port } = server.address() as AddressInfo;
    const query = 'from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z';
    return new Promise((resolve, reject) => {
      get(`http://127.0.0.1:${port}/exports/payouts.csv?${query}`, (response) => {
        response.pause();
        responses.push(response);
        resolve(response);
      }).once('error', reject);
    });
  }

  it('reads no further than the client takes, goes on as it reads, and stops reading when it goes away', async () => {
    const response = await open();
    expect(response.statusCode).toBe(200);
    const held = await settledAt(() => source.read);
    // What the socket buffers hold, not the endless window.
    expect(held).toBeLessThan(100_000);
    expect(source.ended).toBe(false);

    let bytes = 0;
    response.on('data', (chunk: Buffer) => (bytes += chunk.length));
    response.resume();
    await eventually(() => (source.read > held + 1000 ? true : undefined));
    expect(bytes).toBeGreaterThan(0);

    response.destroy();
    await eventually(() => (source.ended ? true : undefined));
    const last = source.read;
    expect(await settledAt(() => source.read)).toBe(last);
  });

  it('runs at most the gateway-wide number of exports at once, refusing another with RATE_LIMITED until one ends', async () => {
    const first = await open();
    const second = await open();
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    const refused = await open();
    expect(refused.statusCode).toBe(429);
    const body = await new Promise<string>((resolve) => {
      let text = '';
      refused.on('data', (chunk: Buffer) => (text += chunk.toString()));
      refused.on('end', () => resolve(text));
      refused.resume();
    });
    expect(JSON.parse(body)).toEqual({
      errors: [
        {
          message: 'At most 2 exports at once on this gateway: send this one again once another has finished',
          extensions: { code: 'RATE_LIMITED' },
        },
      ],
    });
    // The first client leaves: its place is free once the gateway has ended its reading.
    first.destroy();
    const again = await eventually(async () => {
      const next = await open();
      if (next.statusCode === 200) return next;
      next.destroy();
      return undefined;
    });
    expect(again.statusCode).toBe(200);
  });

  it('cuts an open export at shutdown, ending its reading first, and starts none after', async () => {
    const response = await open();
    const cut = new Promise<boolean>((resolve) => response.once('close', () => resolve(response.complete)));
    await settledAt(() => source.read);
    await exports.close();
    expect(source.ended).toBe(true);
    response.resume();
    expect(await cut).toBe(false);
    // Nothing would cut one started now: it is refused before anything is read.
    const read = source.read;
    const late = await open();
    expect(late.statusCode).toBe(503);
    expect(source.read).toBe(read);
  });
});
