import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export interface SignedCallback {
  headers: Record<string, string>;
  body: string;
}

/** Signs provider callbacks the way the provider (and the sandbox) does: Standard Webhooks over the raw body. */
export class CallbackSigner {
  private readonly webhook: Webhook;

  constructor(secret: string) {
    this.webhook = new Webhook(secret);
  }

  /** The flat record the provider POSTs when a mobile money payout succeeds. */
  successful(referenceId: string, accountNumber: string): SignedCallback {
    const body = JSON.stringify({
      referenceId,
      currency: 'ZMW',
      amount: 150.75,
      accountNumber,
      status: 'Successful',
      paymentType: 'OperatorAMoney',
      type: 'Disbursement',
      ipAddress: '127.0.0.1',
      identifier: `MM-bench-${referenceId}`,
      message: null,
      externalId: `OP-${referenceId}`,
    });
    const id = `msg_${randomUUID().replace(/-/g, '')}`;
    const now = new Date();
    return {
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': this.webhook.sign(id, now, body),
      },
      body,
    };
  }
}

/** A fresh Standard Webhooks secret, given to the gateway (WEBHOOK_SECRET) and to the signer. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
