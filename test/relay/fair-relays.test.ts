import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachEngine } from '../support/modes';
import { bankInput, CREATE_BANK, eventually, gql, knownSecrets, Stack, startStack } from '../support/stack';

const A = { id: 'merchant-a', apiKey: 'relay-key-a', token: 'relay-token-a-0123456789' };
const B = { id: 'merchant-b', apiKey: 'relay-key-b', token: 'relay-token-b-0123456789' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describeEachEngine('relays of one merchant never hold up another', (storeEnv) => {
  let stack: Stack;
  let endpoints: Server;
  let url: string;
  /** A's endpoint accepts and never answers; B's answers at once. */
  const hanging = new Set<ServerResponse>();
  let hangingEnded = 0;
  const arrivedForB: { referenceId: string; hangingEndedBefore: number; hangingOpen: number }[] = [];

  beforeAll(async () => {
    endpoints = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/a-hangs') {
          hanging.add(res);
          res.on('close', () => {
            hanging.delete(res);
            hangingEnded += 1;
          });
          return;
        }
        const { data } = JSON.parse(body) as { data: { referenceId: string } };
        arrivedForB.push({
          referenceId: data.referenceId,
          hangingEndedBefore: hangingEnded,
          hangingOpen: hanging.size,
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => endpoints.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(endpoints.address() as AddressInfo).port}`;
    const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
    writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
    for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
    stack = await startStack({
      // A's attempts hang for 20 s each: B's relay must not wait for any of them to end.
      env: { ...storeEnv(), MERCHANTS_FILE: file, RELAY_ALLOW_PRIVATE_NETWORKS: 'true', RELAY_TIMEOUT_MS: '20000' },
      sandbox: { activeKeys: [A.apiKey, B.apiKey], settleMs: 50 },
    });
  });
  afterAll(async () => {
    for (const res of hanging) res.destroy();
    await stack.close();
    endpoints.closeAllConnections();
    await new Promise((r) => endpoints.close(r));
  });

  it("64 hanging relays for merchant A: merchant B's relay arrives while all of A's still hang", async () => {
    const ofA = await Promise.all(
      Array.from({ length: 64 }, () =>
        gql(stack.graphqlUrl, CREATE_BANK, { input: bankInput({ callbackUrl: `${url}/a-hangs` }) }, bearer(A.token)),
      ),
    );
    for (const res of ofA) expect(res.errors).toBeUndefined();
    // A's relays are being attempted, and hang.
    await eventually(() => (hanging.size >= 4 ? true : undefined), 200);

    const input = bankInput({ callbackUrl: `${url}/b-answers` });
    const created = await gql(stack.graphqlUrl, CREATE_BANK, { input }, bearer(B.token));
    expect(created.errors).toBeUndefined();
    const arrival = await eventually(() => arrivedForB.find((a) => a.referenceId === input.referenceId), 400);
    // Arrived before any of A's attempts ended (each hangs for 20 s), with A's still open.
    expect(arrival.hangingEndedBefore).toBe(0);
    expect(arrival.hangingOpen).toBeGreaterThan(0);
    // One merchant holds at most its share of attempts in flight.
    expect(hanging.size).toBeLessThanOrEqual(8);
  });
});
