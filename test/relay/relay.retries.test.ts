import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { PayoutRow } from '../support/fixtures';
import { bankInput, CREATE_BANK, DISBURSEMENT_FIELDS, eventually, gql, Stack, startStack } from '../support/stack';

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} relay { url delivered gaveUp attempts { at status error } } } }`;

const read = async (stack: Stack, referenceId: string) =>
  (
    await gql<{
      disbursement: PayoutRow & {
        relay: { delivered: boolean; gaveUp: boolean; attempts: { status: number | null }[] } | null;
      };
    }>(stack.graphqlUrl, QUERY, { referenceId })
  ).data!.disbursement;

describe("relay to the client's callbackUrl", () => {
  const relaySecret = `whsec_${Buffer.from('relay secret for tests, 32 bytes').toString('base64')}`;
  let stack: Stack;
  let receiver: Server;
  let receiverUrl: string;
  const received: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let failuresLeft = 2;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        const fail = req.url === '/always-down' || (req.url === '/flaky' && failuresLeft-- > 0);
        res.writeHead(fail ? 503 : 204);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startStack({
      env: {
        RELAY_WEBHOOK_SECRET: relaySecret,
        RELAY_MAX_ATTEMPTS: '3',
        RELAY_RETRY_BASE_MS: '50',
        RELAY_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await new Promise((r) => receiver.close(r));
  });

  it('delivers the final record signed, retrying until the client answers 2xx, with an audit of attempts', async () => {
    const input = bankInput({ callbackUrl: `${receiverUrl}/flaky` });
    await gql(stack.graphqlUrl, CREATE_BANK, { input });
    const done = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.relay?.delivered ? r : undefined;
    }, 200);
    expect(done.relay?.attempts.map((a) => a.status)).toEqual([503, 503, 204]);
    const deliveries = received.filter((r) => r.path === '/flaky');
    expect(deliveries).toHaveLength(3);
    const last = deliveries[2];
    const verified = new Webhook(relaySecret).verify(last.body, {
      'webhook-id': String(last.headers['webhook-id']),
      'webhook-timestamp': String(last.headers['webhook-timestamp']),
      'webhook-signature': String(last.headers['webhook-signature']),
    }) as { data: { referenceId: string; status: string } };
    expect(verified.data).toMatchObject({ referenceId: input.referenceId, status: 'SUCCESSFUL' });
    expect(new Set(deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1);
  });

  it('stops after its bound when the client never answers 2xx', async () => {
    const input = bankInput({ callbackUrl: `${receiverUrl}/always-down` });
    await gql(stack.graphqlUrl, CREATE_BANK, { input });
    const done = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.relay?.gaveUp ? r : undefined;
    }, 200);
    expect(done.relay?.attempts).toHaveLength(3);
    // gaveUp is stored by the same decision that ends the job instead of scheduling a retry: once it reads true,
    // no fourth attempt is coming.
    expect(received.filter((r) => r.path === '/always-down')).toHaveLength(3);
  });
});
