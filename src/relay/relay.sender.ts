import { Agent, request } from 'undici';
import { WebhookSecrets } from '../http/webhook.signature';
import { RelayAttempt } from '../disbursements/disbursement.model';
import { publicOnlyConnector, RelayTargetRefused } from './relay.connector';
import { RelayJob } from '../disbursements/relay.job';

export interface RelaySenderOptions {
  /** Standard Webhooks secrets, each signing every relay (several while one is rotated); none: relays go unsigned. */
  secrets?: readonly string[];
  /** Bounds one attempt, connect to last byte. */
  timeoutMs: number;
  /** true: any address may be reached (the embedded sandbox's default, for trying it on one machine). */
  allowPrivateNetworks: boolean;
}

/** What one attempt came to; `cause` is for the operator's log only, never for the client's audit. */
export interface RelayOutcome {
  attempt: RelayAttempt;
  refused: boolean;
  cause?: string;
}

/**
 * One signed POST of a job's body to the client's callbackUrl. Redirects are not followed, and
 * unless private networks are allowed, the socket reaches public addresses only (checked on the
 * address it actually connects to). The audit says "refused" or "failed", never why: an error
 * like "ECONNREFUSED 10.0.0.7:6379" would turn the relay into a scanner of the gateway's network.
 */
export class RelaySender {
  private readonly webhook?: WebhookSecrets;
  private readonly agent: Agent;

  constructor(private readonly opts: RelaySenderOptions) {
    this.webhook = opts.secrets?.length ? new WebhookSecrets(opts.secrets) : undefined;
    this.agent = new Agent({
      keepAliveTimeout: 5_000,
      connect: opts.allowPrivateNetworks ? { timeout: opts.timeoutMs } : publicOnlyConnector(opts.timeoutMs),
    });
  }

  async send(job: RelayJob): Promise<RelayOutcome> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'webhook-id': job.webhookId };
    const now = new Date();
    if (this.webhook) {
      headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
      headers['webhook-signature'] = this.webhook.sign(job.webhookId, now, job.body);
    }
    const attempt: RelayAttempt = { at: now.toISOString() };
    try {
      const res = await request(job.url, {
        method: 'POST',
        headers,
        body: job.body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
      await res.body.dump();
      attempt.status = res.statusCode;
      return { attempt, refused: false };
    } catch (error) {
      const refused = isRefusal(error);
      attempt.error = refused ? 'refused' : 'failed';
      return { attempt, refused, cause: error instanceof Error ? error.message.slice(0, 200) : String(error) };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** undici may hand the connector's error on as it is or as the cause of its own. */
function isRefusal(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (e instanceof RelayTargetRefused) return true;
  return false;
}
