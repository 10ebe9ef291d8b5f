import { createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/**
 * Standard Webhooks with the HMAC computed by node:crypto. The library decodes and checks the
 * secret, parses the headers, keeps the 5-minute window and compares in constant time; only its
 * SHA-256, written in JavaScript (fast-sha256), is replaced: it was most of a callback's
 * verification time. `test/callbacks/webhook.signature.test.ts` holds the two to the same answers.
 */
export class NativeWebhook extends Webhook {
  private readonly secretKey: KeyObject;

  constructor(secret: string) {
    // The library refuses a secret that is not base64; what it accepted decodes the same here.
    super(secret);
    this.secretKey = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
  }

  override sign(msgId: string, timestamp: Date, payload: string | Buffer): string {
    const seconds = Math.floor(timestamp.getTime() / 1000);
    const mac = createHmac('sha256', this.secretKey).update(`${msgId}.${seconds}.${payload.toString()}`);
    return `v1,${mac.digest('base64')}`;
  }
}

/**
 * Several secrets at once, as a rotation holds them: a message signed with any one verifies (and
 * says which, by position from 1, never the value), and a message sent is signed with each, its
 * signatures space-separated in one `webhook-signature` header as the Standard Webhooks
 * specification describes, so a receiver holding either secret accepts it.
 */
export class WebhookSecrets {
  private readonly webhooks: NativeWebhook[];

  constructor(secrets: readonly string[]) {
    this.webhooks = secrets.map((secret) => new NativeWebhook(secret));
  }

  /** The payload parsed, and the position of the secret that verified it; throws the last WebhookVerificationError when none does. */
  verify(payload: string, headers: Record<string, string>): { body: unknown; position: number } {
    // Made only when refused: an error captures a stack, which cost every accepted callback 8 % of its time.
    let refusal: WebhookVerificationError | undefined;
    for (const [i, webhook] of this.webhooks.entries()) {
      try {
        return { body: webhook.verify(payload, headers), position: i + 1 };
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        refusal = error;
      }
    }
    throw refusal ?? new WebhookVerificationError('No webhook secret');
  }

  /** One `v1,<signature>` per secret, space-separated. */
  sign(msgId: string, timestamp: Date, payload: string): string {
    return this.webhooks.map((webhook) => webhook.sign(msgId, timestamp, payload)).join(' ');
  }
}
