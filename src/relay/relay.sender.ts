import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { publicFields } from '../disbursements/disbursement.fields';
import { Disbursement, RelayAttempt } from '../disbursements/disbursement.model';
import { DisbursementStore } from '../disbursements/disbursement.ports';
import { Logger } from '../observability/logger';

export interface RelayOptions {
  store: DisbursementStore;
  logger: Logger;
  /** Standard Webhooks secret the client verifies with; unset: relays go unsigned. */
  secret?: string;
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs?: number;
}

/** The record as the client's endpoint receives it: its public fields, as the GraphQL type has them. */
function payload(record: Disbursement): string {
  return JSON.stringify({ type: 'disbursement.final', data: publicFields(record) });
}

/**
 * POSTs a payout's final record to the client's own callbackUrl, signed, retried with backoff
 * for a bounded number of attempts; every attempt is written to the record's relay audit.
 * Retries live in this process: a restart between attempts ends them (noted in the README).
 */
export class RelaySender {
  private readonly webhook?: Webhook;
  private readonly agent = new Agent({ keepAliveTimeout: 5_000 });
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly opts: RelayOptions) {
    this.webhook = opts.secret ? new Webhook(opts.secret) : undefined;
  }

  /** Starts delivery for a record that just became final, when its client asked for one. */
  enqueue(record: Disbursement): void {
    const url = record.request?.channel === 'BANK' ? record.request.callbackUrl : undefined;
    if (!url || this.closed) return;
    this.run(record, url, 1);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.inFlight);
    await this.agent.close();
  }

  private run(record: Disbursement, url: string, attempt: number): void {
    const task = this.attempt(record, url, attempt).catch((error: unknown) =>
      this.opts.logger.error({ err: error, referenceId: record.referenceId }, 'relay attempt could not be recorded'),
    );
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  private async attempt(record: Disbursement, url: string, attempt: number): Promise<void> {
    const body = payload(record);
    // Stable across attempts, so the client can drop repeats of one delivery.
    const id = `relay_${createHash('sha256').update(`${record.merchantId}\u0000${record.referenceId}\u0000${record.status}`).digest('hex').slice(0, 32)}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'webhook-id': id };
    if (this.webhook) {
      const now = new Date();
      headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
      headers['webhook-signature'] = this.webhook.sign(id, now, body);
    }
    const result: RelayAttempt = { at: new Date().toISOString() };
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: this.opts.timeoutMs ?? 5_000,
        bodyTimeout: this.opts.timeoutMs ?? 5_000,
      });
      await res.body.dump();
      result.status = res.statusCode;
    } catch (error) {
      result.error = error instanceof Error ? error.message.slice(0, 200) : 'request failed';
    }
    const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
    const gaveUp = !delivered && attempt >= this.opts.maxAttempts;
    await this.opts.store.update(record.merchantId, record.referenceId, (current) => ({
      ...current,
      relay: { url, delivered, gaveUp, attempts: [...(current.relay?.attempts ?? []), result] },
    }));
    this.opts.logger.info(
      { referenceId: record.referenceId, attempt, status: result.status, error: result.error, delivered, gaveUp },
      'relay attempt',
    );
    if (delivered || gaveUp || this.closed) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.run(record, url, attempt + 1);
      },
      this.opts.retryBaseMs * 2 ** (attempt - 1),
    );
    this.timers.add(timer);
  }
}
