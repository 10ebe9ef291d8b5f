import { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { MerchantRegistry } from '../auth/merchant.registry';
import { DisbursementService } from '../disbursements/disbursement.service';
import { HttpError, readBody } from '../http/http.body';
import { sendJson } from '../http/http.reply';
import { Logger } from '../observability/logger';
import { GatewayMetrics } from '../observability/metrics';
import { parseProviderRecord, unwrapEnvelope } from '../upstream/provider.record';

/** Callbacks are single records; anything larger is not one. */
const CALLBACK_BODY_LIMIT = 32 * 1024;

export interface CallbackReceiverOptions {
  service: DisbursementService;
  merchants: MerchantRegistry;
  /** Standard Webhooks secret; unset: the unguessable path token is the only credential. */
  webhookSecret?: string;
  logger: Logger;
  metrics: GatewayMetrics;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The provider's callbacks: verified, parsed tolerantly, stored, and only then acknowledged. */
export class CallbackReceiver {
  private readonly webhook?: Webhook;

  constructor(private readonly opts: CallbackReceiverOptions) {
    this.webhook = opts.webhookSecret ? new Webhook(opts.webhookSecret) : undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const { logger, metrics } = this.opts;
    const refuse = (status: number, result: string, error: string) => {
      metrics.callbacks.inc({ result });
      sendJson(res, status, { error });
    };
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'Use POST' }, { allow: 'POST' });
    const merchant = this.opts.merchants.byCallback(token);
    if (!merchant) return refuse(404, 'unknown_path', 'Not found');

    let raw: string;
    try {
      raw = (await readBody(req, CALLBACK_BODY_LIMIT)).toString('utf8');
    } catch (error) {
      if (error instanceof HttpError) return refuse(error.status, 'too_large', error.message);
      throw error;
    }
    const deliveryId = header(req, 'webhook-id');
    let body: unknown;
    try {
      // The library checks the signature and the 5-minute window, then parses the JSON it signed.
      body = this.webhook
        ? this.webhook.verify(raw, {
            'webhook-id': deliveryId ?? '',
            'webhook-timestamp': header(req, 'webhook-timestamp') ?? '',
            'webhook-signature': header(req, 'webhook-signature') ?? '',
          })
        : JSON.parse(raw);
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        logger.warn({ merchant: merchant.id, reason: error.message }, 'callback refused: bad signature');
        return refuse(401, 'bad_signature', 'Invalid webhook signature');
      }
      if (error instanceof SyntaxError) return refuse(400, 'malformed', 'Body is not JSON');
      throw error;
    }
    const record = parseProviderRecord(unwrapEnvelope(body));
    if (!record) return refuse(400, 'malformed', 'Body is not a disbursement record (referenceId and status required)');

    const { record: stored, changed } = await this.opts.service.applyCallback(merchant.id, record, deliveryId);
    metrics.callbacks.inc({ result: changed ? 'applied' : 'unchanged' });
    // The payout's own request id joins this line to the mutation that created it.
    logger.info(
      { requestId: stored.requestId, merchant: merchant.id, referenceId: record.referenceId, status: stored.status, changed, deliveryId },
      'callback received',
    );
    sendJson(res, 200, { received: true });
  }
}
