import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { NativeWebhook } from '../../src/http/webhook.signature';

const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
const seconds = (date: Date) => String(Math.floor(date.getTime() / 1000));

/** What verify made of a delivery: the parsed body, or the library's refusal. */
function verdict(webhook: Webhook, payload: string, headers: Record<string, string>): unknown {
  try {
    return { body: webhook.verify(payload, headers) };
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { refused: error.message };
    throw error;
  }
}

describe('Standard Webhooks signatures with node:crypto', () => {
  const now = new Date();
  const payloads = ['{}', '{"referenceId":"r-1","status":"Successful"}', `{"note":"${'é✓'.repeat(500)}"}`, ''];

  it.each([16, 24, 32, 64])('signs as the library does, with a %i-byte secret', (bytes) => {
    const secret = secretOf(bytes);
    for (const payload of payloads)
      expect(new NativeWebhook(secret).sign('msg_1', now, payload)).toBe(
        new Webhook(secret).sign('msg_1', now, payload),
      );
    expect(new NativeWebhook(secret).sign('msg_2', now, Buffer.from(payloads[2]))).toBe(
      new Webhook(secret).sign('msg_2', now, Buffer.from(payloads[2])),
    );
  });

  const secret = secretOf(32);
  const other = secretOf(32);
  const payload = payloads[1];
  const signed = (signer: string, at = now, id = 'msg_1') => new Webhook(signer).sign(id, at, payload);
  const cases: [string, Record<string, string>][] = [
    [
      'a good signature',
      { 'webhook-id': 'msg_1', 'webhook-timestamp': seconds(now), 'webhook-signature': signed(secret) },
    ],
    [
      'a good one among others',
      { 'webhook-id': 'msg_1', 'webhook-timestamp': seconds(now), 'webhook-signature': `v1,AAAA ${signed(secret)}` },
    ],
    [
      'another secret',
      { 'webhook-id': 'msg_1', 'webhook-timestamp': seconds(now), 'webhook-signature': signed(other) },
    ],
    [
      'another message id',
      { 'webhook-id': 'msg_2', 'webhook-timestamp': seconds(now), 'webhook-signature': signed(secret) },
    ],
    [
      'a timestamp six minutes old',
      {
        'webhook-id': 'msg_1',
        'webhook-timestamp': seconds(new Date(now.getTime() - 360_000)),
        'webhook-signature': signed(secret, new Date(now.getTime() - 360_000)),
      },
    ],
    ['no signature', { 'webhook-id': 'msg_1', 'webhook-timestamp': seconds(now), 'webhook-signature': '' }],
    [
      'a timestamp that is no number',
      { 'webhook-id': 'msg_1', 'webhook-timestamp': 'soon', 'webhook-signature': 'v1,x' },
    ],
  ];

  it.each(cases)('verifies %s as the library does', (_name, headers) => {
    expect(verdict(new NativeWebhook(secret), payload, headers)).toEqual(
      verdict(new Webhook(secret), payload, headers),
    );
  });

  it('accepts a good signature and refuses another secret’s', () => {
    const good = cases[0][1];
    expect(verdict(new NativeWebhook(secret), payload, good)).toEqual({ body: JSON.parse(payload) });
    expect(verdict(new NativeWebhook(other), payload, good)).toEqual({ refused: 'No matching signature found' });
  });

  it('refuses a secret that is not base64, as the library does', () => {
    expect(() => new NativeWebhook('whsec_not*base64')).toThrow();
    expect(() => new Webhook('whsec_not*base64')).toThrow();
  });
});
