import { Agent, request } from 'undici';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { repeatedLine } from '../observability/log.throttle';
import { Logger } from '../observability/pino.logger';
import { checkpointLine, keepLine } from './audit.checkpoint-file';

/*
 * The witness (AUDIT_WITNESS_URL): an HTTP address the database's keepers cannot rewrite. The
 * gateway POSTs the checkpoints it signs there as JSON lines, the checkpoint file's format
 * (`application/x-ndjson`); a 2xx answer means they are kept. A GET answers every checkpoint it
 * keeps the same way, for `audit:verify`. With AUDIT_WITNESS_TOKEN, both carry
 * `authorization: Bearer <token>`.
 */

/** What /readyz says of the witness: none configured, all signed delivered, or checkpoints waiting for it. */
export type WitnessState = 'none' | 'current' | 'behind';

/** One request to the witness, connect to last byte. */
const TIMEOUT_MS = 10_000;
/** The last attempt at shutdown: well inside the process's 15 s deadline. */
const LAST_ATTEMPT_MS = 2_000;
/** After a failed delivery the next waits this long, doubling up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

const NDJSON = 'application/x-ndjson';

const authorization = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

export interface WitnessOptions {
  url: string;
  token?: string;
  logger: Logger;
  /** Told how many checkpoints wait for the witness whenever that changes (a gauge). */
  onPending(count: number): void;
}

/**
 * Publishes signed checkpoints to the witness in the background: `publish` never waits, so no write
 * or payout waits for the witness. A delivery that fails is tried again, 1 s later, then 2, 4… up to
 * a minute, until the witness takes it. What waits is, per merchant, the newest checkpoint not yet
 * taken: it signs the chain every older one signed, so an outage costs the witness only the
 * checkpoints in between, and memory one checkpoint per merchant. Delivery is at least once: a
 * checkpoint whose answer was lost is sent again, so a witness may keep one twice.
 */
export class CheckpointWitness {
  private readonly waiting = new Map<string, AuditCheckpoint>();
  /** The checkpoints of the delivery under way. */
  private sending: readonly AuditCheckpoint[] = [];
  private delivery?: Promise<void>;
  /** Ends the delivery under way (at shutdown). */
  private abort = new AbortController();
  private retry?: NodeJS.Timeout;
  private retryMs = RETRY_FIRST_MS;
  private closing = false;
  private readonly agent = new Agent({ keepAliveTimeout: 5_000, connect: { timeout: TIMEOUT_MS } });
  private readonly unreachable: (fields: Record<string, unknown>) => void;

  constructor(private readonly opts: WitnessOptions) {
    this.unreachable = repeatedLine(
      opts.logger,
      'warn',
      'audit witness did not take the checkpoints; they wait for it and are sent again',
    );
  }

  /** Queues `checkpoints` for the witness and starts a delivery unless one is under way or a retry is due. */
  publish(checkpoints: readonly AuditCheckpoint[]): void {
    for (const c of checkpoints) {
      const older = this.waiting.get(c.merchantId);
      if (!older || older.sequence <= c.sequence) this.waiting.set(c.merchantId, c);
    }
    this.report();
    if (!this.retry && !this.closing) void this.deliver(TIMEOUT_MS);
  }

  state(): Exclude<WitnessState, 'none'> {
    return this.pending() === 0 ? 'current' : 'behind';
  }

  /**
   * Shutdown: the delivery under way gets LAST_ATTEMPT_MS more to finish, what waits (the last
   * round's checkpoints included) one attempt of as long, then the connection closes; what is left
   * is logged.
   */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    const cut = setTimeout(() => this.abort.abort(), LAST_ATTEMPT_MS);
    await this.delivery;
    clearTimeout(cut);
    this.abort = new AbortController();
    await this.deliver(LAST_ATTEMPT_MS);
    await this.agent.close();
    if (this.waiting.size > 0)
      this.opts.logger.warn(
        { merchants: [...this.waiting.keys()] },
        "audit witness not reached before shutdown: the next start sends each merchant's newest checkpoint again",
      );
  }

  private pending(): number {
    return this.waiting.size + this.sending.length;
  }

  private report(): void {
    this.opts.onPending(this.pending());
  }

  private deliver(timeoutMs: number): Promise<void> {
    if (this.delivery || this.waiting.size === 0) return this.delivery ?? Promise.resolve();
    this.sending = [...this.waiting.values()];
    this.waiting.clear();
    this.delivery = this.post(this.sending, timeoutMs).then((taken) => {
      const sent = this.sending;
      this.sending = [];
      this.delivery = undefined;
      if (taken) {
        if (this.retryMs > RETRY_FIRST_MS) this.opts.logger.info('audit witness reached again: checkpoints delivered');
        this.retryMs = RETRY_FIRST_MS;
      } else {
        // Back in line, unless a newer one of the same merchant came meanwhile.
        for (const c of sent) if (!this.waiting.has(c.merchantId)) this.waiting.set(c.merchantId, c);
      }
      this.report();
      if (this.closing) return;
      if (taken) void this.deliver(TIMEOUT_MS);
      else this.retryLater();
    });
    return this.delivery;
  }

  private retryLater(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.deliver(TIMEOUT_MS);
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** One POST; true when the witness took every line. */
  private async post(checkpoints: readonly AuditCheckpoint[], timeoutMs: number): Promise<boolean> {
    try {
      const res = await request(this.opts.url, {
        method: 'POST',
        headers: { 'content-type': NDJSON, ...authorization(this.opts.token) },
        body: checkpoints.map(checkpointLine).join(''),
        dispatcher: this.agent,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(timeoutMs)]),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) return true;
      this.unreachable({ status: res.statusCode, waiting: checkpoints.length });
    } catch (error) {
      // Cut short by shutdown, which tries once more itself.
      if (!this.abort.signal.aborted)
        this.unreachable({
          reason: error instanceof Error ? error.message : String(error),
          waiting: checkpoints.length,
        });
    }
    return false;
  }
}

/**
 * Every checkpoint the witness at `url` keeps, by merchant (`audit:verify`). Throws an Error saying
 * why when it cannot be read: not reached, an answer other than 200, a line that is not a checkpoint.
 */
export async function readWitness(url: string, token?: string): Promise<Map<string, AuditCheckpoint[]>> {
  // Its own connection, closed after: a kept-alive one would hold the command open after its answer.
  const agent = new Agent({ connect: { timeout: TIMEOUT_MS } });
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: 'GET',
      headers: { accept: NDJSON, ...authorization(token) },
      dispatcher: agent,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    status = res.statusCode;
    text = await res.body.text();
  } finally {
    await agent.close();
  }
  if (status !== 200) throw new Error(`it answered ${status}`);
  const byMerchant = new Map<string, AuditCheckpoint[]>();
  text.split('\n').forEach((line, i) => keepLine(byMerchant, line, i + 1, 'its answer'));
  return byMerchant;
}
