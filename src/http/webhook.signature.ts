import { createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

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
