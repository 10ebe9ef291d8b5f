import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementStore } from '../disbursements/disbursement.ports';
import { Logger } from '../observability/logger';
import { LeasedRelayJob, RelayQueue, relayJobFor } from './relay.queue';
import { RelaySender } from './relay.sender';

export interface RelayWorkerOptions {
  queue: RelayQueue;
  sender: RelaySender;
  /** Where each attempt is written, as the record's relay audit. */
  store: DisbursementStore;
  logger: Logger;
  maxAttempts: number;
  /** First backoff; it doubles with every attempt, up to 10 minutes. */
  retryBaseMs: number;
  /** How often the queue is asked for due jobs, including those another replica left behind. */
  pollMs: number;
  /** How long a replica holds a job it is sending; longer than one attempt may take. */
  leaseMs: number;
  /** Jobs taken, and sent at once, per round. */
  batchSize?: number;
}

const MAX_BACKOFF_MS = 10 * 60_000;

/**
 * Sends what the relay queue holds. Each replica runs one: it takes due jobs under a lease, sends
 * each once, writes the attempt to the record, and then finishes the job or puts it back with a
 * backoff. A replica that dies mid-attempt loses only its lease: the job comes due again, and the
 * next replica sends it with the same webhook-id, so the client can drop a repeat.
 */
export class RelayWorker {
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private round?: Promise<void>;
  private again = false;
  private stopped = true;

  constructor(private readonly opts: RelayWorkerOptions) {}

  start(): void {
    this.stopped = false;
    this.wake(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
  }

  /** For a record that just became final: stores its relay, when its client asked for one, and sends it soon. */
  async enqueue(record: Disbursement): Promise<void> {
    const job = relayJobFor(record);
    if (!job) return;
    await this.opts.queue.enqueue(job, new Date());
    this.wake(0);
  }

  /** One round: lease what is due and send it. Resolves with how many jobs it sent. */
  async runOnce(): Promise<number> {
    const { queue, leaseMs, batchSize = 16 } = this.opts;
    const now = Date.now();
    const jobs = await queue.lease(new Date(now), batchSize, new Date(now + leaseMs));
    await Promise.all(jobs.map((job) => this.deliver(job)));
    return jobs.length;
  }

  /** Runs a round in `delayMs` unless one is already set for sooner. */
  private wake(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.run();
    }, delayMs);
    this.timer.unref();
  }

  private run(): void {
    if (this.round) {
      this.again = true;
      return;
    }
    this.round = this.runOnce()
      .then(
        (sent) => sent,
        (error: unknown) => {
          this.opts.logger.warn({ err: error }, 'relay round failed');
          return 0;
        },
      )
      .then((sent) => {
        this.round = undefined;
        // A full batch may have left more due jobs behind.
        const more = this.again || sent >= (this.opts.batchSize ?? 16);
        this.again = false;
        this.wake(more ? 0 : this.opts.pollMs);
      });
  }

  private async deliver(job: LeasedRelayJob): Promise<void> {
    const { queue, sender, store, logger, maxAttempts } = this.opts;
    const { attempt, refused, cause } = await sender.send(job);
    const number = job.attempts + 1;
    const delivered = attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;
    // A refused target stays refused: asking again would only probe the same address.
    const gaveUp = !delivered && (refused || number >= maxAttempts);
    try {
      const stored = await store.update(job.merchantId, job.referenceId, (current) => ({
        ...current,
        relay: { url: job.url, delivered, gaveUp, attempts: [...(current.relay?.attempts ?? []), attempt] },
      }));
      logger.info(
        { referenceId: job.referenceId, requestId: job.requestId, attempt: number, status: attempt.status, cause, delivered, gaveUp },
        'relay attempt',
      );
      if (delivered || gaveUp || !stored) {
        await queue.finish(job);
        return;
      }
      const backoff = Math.min(this.opts.retryBaseMs * 2 ** (number - 1), MAX_BACKOFF_MS);
      await queue.retry(job, new Date(Date.now() + backoff));
      this.wake(backoff);
    } catch (error) {
      // The lease runs out and the job comes due again: one more attempt, never one fewer.
      logger.error({ err: error, referenceId: job.referenceId }, 'relay attempt could not be recorded');
    }
  }
}
