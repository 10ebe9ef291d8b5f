import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  bankInput,
  capturedLogs,
  CREATE_BANK,
  DISBURSEMENT_FIELDS,
  eventually,
  gql,
  Stack,
  startStack,
} from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

/**
 * A provider that echoes its request headers (x-api-key among them) and the gateway's callback
 * address (with its path token) in `message`: the sandbox does so for accounts ending in 999. No
 * secret may reach a client, a relay or a log line; the suite's leak check (test/support/leaks.ts)
 * also scans every response and log line this file saw.
 */
let stack: Stack;
let receiver: Server;
let port: number;
const relayBodies: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      relayBodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
  stack = await startStack({ env: { RELAY_ALLOW_PRIVATE_NETWORKS: 'true', RELAY_RETRY_BASE_MS: '50' } });
});
afterAll(async () => {
  await stack.close();
  await new Promise((r) => receiver.close(r));
});

/** The single merchant's key and callback path token, and every other secret the gateway holds. */
const secretsOf = (s: Stack) => [
  'sandbox-key',
  s.gateway.callbackUrl('default').split('/').pop() ?? '',
  ...s.gateway.secrets,
];

function expectClean(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}

it('an echoing provider leaks no key or path token in the mutation answer, queries, subscription events, history, relay bodies or logs', async () => {
  const secrets = secretsOf(stack);
  expect(secrets.length).toBeGreaterThan(1);
  const input = bankInput({ accountNumber: '0012345999', callbackUrl: `http://127.0.0.1:${port}/hook` });
  const referenceId = String(input.referenceId);

  const ws = wsClient(stack.graphqlUrl);
  const sub = subscribe<{ disbursementUpdated: PayoutRow }>(ws, WATCH, {
    referenceId: referenceId,
  });
  try {
    const created = await gql<{ createBankDisbursement: { message: string } }>(stack.graphqlUrl, CREATE_BANK, {
      input,
    });
    expect(created.errors).toBeUndefined();
    // The echo did arrive, with its secrets cut out.
    expect(created.data?.createBankDisbursement.message).toMatch(
      /^echo .*x-api-key=\[redacted\].*callbacks\/\[redacted\]/,
    );
    expectClean(created.text, secrets);

    const settled = await eventually(async () => {
      const res = await gql<{ disbursement: { status: string; relay: { delivered: boolean } | null } }>(
        stack.graphqlUrl,
        `query ($r: ID!, $refresh: Boolean) { disbursement(referenceId: $r, refresh: $refresh) { ${DISBURSEMENT_FIELDS} relay { delivered } } }`,
        { r: referenceId, refresh: true },
      );
      expectClean(res.text, secrets);
      return res.data?.disbursement.status === 'SUCCESSFUL' && res.data.disbursement.relay?.delivered ? res : undefined;
    }, 200);
    expect(settled.text).toContain('[redacted]');

    const page = await gql(
      stack.graphqlUrl,
      `{ disbursementHistory(first: 50) { edges { node { ${DISBURSEMENT_FIELDS} } } } }`,
    );
    expect(page.errors).toBeUndefined();
    expect(page.text).toContain(referenceId);
    expectClean(page.text, secrets);

    await eventually(
      () => (sub.events.some((e) => e.disbursementUpdated.status === 'SUCCESSFUL') ? true : undefined),
      200,
    );
    expect(sub.events.some((e) => (e.disbursementUpdated.message ?? '').includes('[redacted]'))).toBe(true);
    expectClean(JSON.stringify(sub.events), secrets);

    await eventually(() => (relayBodies.some((b) => b.includes(referenceId)) ? true : undefined), 200);
    expect(relayBodies.find((b) => b.includes(referenceId))).toContain('[redacted]');
    for (const body of relayBodies) expectClean(body, secrets);
    for (const line of capturedLogs) expectClean(line, secrets);
  } finally {
    sub.dispose();
    await ws.dispose();
  }
});
