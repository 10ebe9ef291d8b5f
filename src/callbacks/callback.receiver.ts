import { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookVerificationError } from 'standardwebhooks';
import { MerchantAccount, MerchantRegistry } from '../auth/merchant.registry';
import { DisbursementService } from '../disbursements/disbursement.service';
import { HttpError, readBody } from '../http/http.body';
import { sendJson } from '../http/http.reply';
import { WebhookSecrets } from '../http/webhook.signature';
import { clientText } from '../observability/client-text.limit';
import { Logger } from '../observability/pino.logger';
import { GatewayMetrics } from '../observability/gateway.metrics';
import { contextFromHeaders, linksTo, Span, SpanKind, traced } from '../observability/tracing.spans';
import { parseProviderRecord, unwrapEnvelope } from '../upstream/provider.record';
import { SecretScrubber } from '../upstream/secret.scrubber';

/** Callbacks are single records; anything larger is not one. */
const CALLBACK_BODY_LIMIT = 32 * 1024;

export interface CallbackReceiverOptions {
  service: DisbursementService;
  merchants: MerchantRegistry;
  /** Standard Webhooks secrets for merchants without their own; none: the unguessable path token is the only credential. */
  webhookSecrets: readonly string[];
  logger: Logger;
  metrics: GatewayMetrics;
  /** Every secret the gateway holds comes out of a callback's text before the domain sees it. */
  scrubber: SecretScrubber;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The provider's callbacks: verified with the secret of the merchant whose path they came to, parsed
 * tolerantly, handed to the domain with whether they were verified, and acknowledged only once stored.
 */
export class CallbackReceiver {
  /** By merchant account: a reloaded MERCHANTS_FILE makes new accounts, and with them new secrets. */
  private readonly webhooks = new WeakMap<MerchantAccount, WebhookSecrets | undefined>();

  constructor(private readonly opts: CallbackReceiverOptions) {}

  /** The merchant's own secrets, else the gateway's; undefined: callbacks to this path come unsigned. */
  private webhookFor(merchant: MerchantAccount): WebhookSecrets | undefined {
    if (!this.webhooks.has(merchant)) {
      const secrets = merchant.webhookSecrets ?? this.opts.webhookSecrets;
      this.webhooks.set(merchant, secrets.length > 0 ? new WebhookSecrets(secrets) : undefined);
    }
    return this.webhooks.get(merchant);
  }

  /**
   * One span per callback received: a trace of its own (the provider calls minutes after the create),
   * linked to the create's trace stored with the record. Its path token is never an attribute.
   */
  handle(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    return traced(
      'callback received',
      {
        kind: SpanKind.SERVER,
        parent: contextFromHeaders(req.headers),
        attributes: { 'http.request.method': req.method ?? '' },
      },
      (span) => this.receive(req, res, token, span),
    );
  }

  private async receive(
    req: IncomingMessage,
    res: ServerResponse,
    token: string,
    span: Span | undefined,
  ): Promise<void> {
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
    const webhook = this.webhookFor(merchant);
    let body: unknown;
    try {
      // The library checks the signature and the 5-minute window, then parses the JSON it signed.
      if (webhook) {
        const verified = webhook.verify(raw, {
          'webhook-id': deliveryId ?? '',
          'webhook-timestamp': header(req, 'webhook-timestamp') ?? '',
          'webhook-signature': header(req, 'webhook-signature') ?? '',
        });
        body = verified.body;
        // By position: an operator sees when the old secret of a rotation is no longer used.
        metrics.callbackSecrets.inc({ merchant: merchant.id, secret: String(verified.position) });
      } else body = JSON.parse(raw);
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        logger.warn({ merchant: merchant.id, reason: error.message }, 'callback refused: bad signature');
        return refuse(401, 'bad_signature', 'Invalid webhook signature');
      }
      if (error instanceof SyntaxError) return refuse(400, 'malformed', 'Body is not JSON');
      throw error;
    }
    const parsed = parseProviderRecord(unwrapEnvelope(body));
    const record = parsed && this.opts.scrubber.record(parsed);
    if (!record) return refuse(400, 'malformed', 'Body is not a disbursement record (referenceId and status required)');

    const outcome = await this.opts.service.applyCallback(merchant, record, {
      deliveryId,
      verified: webhook !== undefined,
    });
    metrics.callbacks.inc({ result: outcome.result });
    const stored = 'record' in outcome ? outcome.record : undefined;
    span?.addLinks(linksTo(stored?.traceparent));
    span?.setAttributes({
      'merchant.id': merchant.id,
      'payout.reference_id': record.referenceId,
      'callback.result': outcome.result,
      'callback.verified': webhook !== undefined,
    });
    // The payout's own request id joins this line to the mutation that created it.
    logger.info(
      {
        requestId: stored?.requestId,
        merchant: merchant.id,
        // Whoever posted the callback chose these, and nothing has checked them.
        referenceId: clientText(record.referenceId),
        status: stored?.status,
        result: outcome.result,
        deliveryId: clientText(deliveryId),
      },
      'callback received',
    );
    // Not confirmed yet: nothing was stored, and the provider delivers it again later.
    if (outcome.result === 'retry_later')
      return sendJson(res, 503, { error: 'Try again later' }, { 'retry-after': '30' });
    sendJson(res, 200, { received: true });
  }
}
