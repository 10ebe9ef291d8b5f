import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config';
import { bankInput, CREATE_BANK, eventually, gql, Stack, startStack } from '../support/stack';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;

describe('RELAY_WEBHOOK_SECRET with two secrets (a rotation under way)', () => {
  const [newSecret, oldSecret] = [secret(), secret()];
  let stack: Stack;
  let receiver: Server;
  let receiverUrl: string;
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startStack({
      env: { RELAY_WEBHOOK_SECRET: `${newSecret} ${oldSecret}`, RELAY_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
  });
  afterAll(async () => {
    await stack.close();
    await new Promise((r) => receiver.close(r));
  });

  it("signs each relay with both, so a client holding either verifies it with Standard Webhooks' own library", async () => {
    const input = bankInput({ callbackUrl: `${receiverUrl}/relay` });
    expect((await gql(stack.graphqlUrl, CREATE_BANK, { input })).errors).toBeUndefined();
    const delivery = await eventually(() => received[0], 200);
    const headers = {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const held of [newSecret, oldSecret]) {
      const verified = new Webhook(held).verify(delivery.body, headers) as { data: { referenceId: string } };
      expect(verified.data.referenceId).toBe(input.referenceId);
    }
    expect(() => new Webhook(secret()).verify(delivery.body, headers)).toThrow();
  });
});

describe('WEBHOOK_SECRET validation', () => {
  it('names the setting when one of several secrets is not whsec_ base64, and never repeats it', () => {
    const bad = `not-a-whsec-secret-${randomUUID()}`;
    let message = '';
    try {
      loadConfig({ WEBHOOK_SECRET: `${secret()} ${bad}` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid setting WEBHOOK_SECRET: each must be whsec_ followed by base64$/);
    expect(message).not.toContain(bad);
    expect(loadConfig({ WEBHOOK_SECRET: `${secret()} ${secret()}` }).webhookSecrets).toHaveLength(2);
  });
});

describe('RELAY_WEBHOOK_SECRET validation', () => {
  it('names the setting when one of several secrets is not whsec_ base64, and never repeats it', () => {
    const bad = 'not-a-whsec-secret';
    expect(() => loadConfig({ RELAY_WEBHOOK_SECRET: `${secret()} ${bad}` })).toThrow(
      /^Invalid setting RELAY_WEBHOOK_SECRET: each must be whsec_ followed by base64$/,
    );
  });
});
