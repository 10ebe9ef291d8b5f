import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import type { SandboxRecord } from './sandbox.records';
import type { Timers } from './sandbox.timers';

/** The flat record the provider POSTs when a payout reaches a final state. */
export interface CallbackBody {
  referenceId: string;
  currency: string;
  amount: number;
  accountNumber: string;
  status: SandboxRecord['status'];
  paymentType: SandboxRecord['paymentType'];
  type: 'Disbursement';
  ipAddress: string;
  identifier: string;
  message: string | null;
  externalId: string | null;
}

export interface CallbackOptions {
  /** Standard Webhooks secret; unset: sent without webhook-* headers. */
  secret?: string;
  retryBaseMs: number;
  maxAttempts: number;
  timers: Timers;
  logger: Logger;
}

const ATTEMPT_TIMEOUT_MS = 5000;

export function callbackBody(record: SandboxRecord): CallbackBody {
  return {
    referenceId: record.referenceId,
    currency: record.currency,
    amount: record.amount,
    accountNumber: record.accountNumber,
    status: record.status,
    paymentType: record.paymentType,
    type: record.type,
    ipAddress: record.ipAddress,
    identifier: record.identifier,
    message: record.message ?? null,
    externalId: record.externalId ?? null,
  };
}

interface Delivery {
  url: string;
  /** Stable across retries, so receivers can use it as the idempotency key. */
  id: string;
  body: string;
  referenceId: string;
}

/** Sends callbacks with retries and exponential backoff; owns its connection pool so close() leaves nothing open. */
export class CallbackSender {
  private readonly webhook?: Webhook;
  private readonly agent = new Agent({ connect: { timeout: ATTEMPT_TIMEOUT_MS } });
  private closed = false;
  private attemptCount = 0;
  private deliveredCount = 0;

  constructor(private readonly opts: CallbackOptions) {
    // Constructing it here makes a malformed secret fail at start, not at the first callback.
    this.webhook = opts.secret === undefined ? undefined : new Webhook(opts.secret);
  }

  get attempts(): number {
    return this.attemptCount;
  }

  get delivered(): number {
    return this.deliveredCount;
  }

  send(url: string, record: SandboxRecord): void {
    const body = JSON.stringify(callbackBody(record));
    this.attempt({ url, id: `msg_${randomUUID().replace(/-/g, '')}`, body, referenceId: record.referenceId }, 1);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.agent.destroy();
  }

  private attempt(delivery: Delivery, attempt: number): void {
    if (this.closed) return;
    this.attemptCount += 1;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.webhook) {
      const now = new Date();
      headers['webhook-id'] = delivery.id;
      headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
      headers['webhook-signature'] = this.webhook.sign(delivery.id, now, delivery.body);
    }
    const abort = new AbortController();
    const cancelTimeout = this.opts.timers.after(ATTEMPT_TIMEOUT_MS, () => abort.abort());
    const log = this.opts.logger.child({ referenceId: delivery.referenceId, webhookId: delivery.id, attempt });
    void request(delivery.url, {
      method: 'POST',
      headers,
      body: delivery.body,
      signal: abort.signal,
      dispatcher: this.agent,
    })
      .then(async (res) => {
        await res.body.dump();
        return res.statusCode >= 200 && res.statusCode < 300 ? undefined : `answered ${res.statusCode}`;
      })
      .catch((err: unknown) => (err instanceof Error ? err.message : String(err)))
      .then((failure) => {
        cancelTimeout();
        if (this.closed) return;
        if (failure === undefined) {
          this.deliveredCount += 1;
          log.debug('callback delivered');
        } else if (attempt < this.opts.maxAttempts) {
          const delayMs = this.opts.retryBaseMs * 2 ** (attempt - 1);
          log.debug({ failure, delayMs }, 'callback failed, will retry');
          this.opts.timers.after(delayMs, () => this.attempt(delivery, attempt + 1));
        } else {
          log.warn({ failure }, 'callback failed, giving up');
        }
      });
  }
}
