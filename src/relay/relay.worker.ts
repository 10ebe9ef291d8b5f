import { linksTo, ROOT_CONTEXT, SpanKind, traced } from '../observability/tracing.spans';
import { Disbursement, RelayAttempt } from '../disbursements/disbursement.model';
import { repeatedLine } from '../observability/log.throttle';
import { Logger } from '../observability/pino.logger';
import { relayUrl } from '../disbursements/relay.job';
import { LeasedRelayJob, RelayQueue } from './relay.queue';
import { RelaySender } from './relay.sender';

export interface RelayWorkerOptions {
  queue: RelayQueue;
  sender: RelaySender;
  /** Writes each attempt on the record, as its relay audit (the domain's one writer does it). */
  noteAttempt: (
    merchantId: string,
    referenceId: string,
    relay: { url: string; delivered: boolean; gaveUp: boolean; attempt: RelayAttempt },
  ) => Promise<Disbursement | undefined>;
  logger: Logger;
  maxAttempts: number;
  /** First backoff; it doubles with every attempt, up to 10 minutes. */
  retryBaseMs: number;
  /** How often the queue is asked for due jobs, including those another replica left behind. */
  pollMs: number;
  /** Asks the loop that runs `tick` for a round in `delayMs` (app.loop.ts). */
  wake: (delayMs: number) => void;
  /** How long a replica holds a job it is sending; longer than one attempt may take. */
  leaseMs: number;
  /** Attempts in flight at once in this replica (a moving window: a freed slot is refilled at once). Default 32. */
  window?: number;
  /** Attempts in flight at once for one merchant in this replica, so endpoints that hang hold only their own slots. Default 8. */
  perMerchant?: number;
}

const MAX_BACKOFF_MS = 10 * 60_000;

/**
 * Sends what the relay queue holds. Each replica runs one: it takes due jobs under a lease, sends
 * each once, writes the attempt to the record, and then finishes the job or puts it back with a
 * backoff. A replica that dies mid-attempt loses only its lease: the job comes due again, and the
 * next replica sends it with the same webhook-id, so the client can drop a repeat.
 *
 * Attempts run in a moving window, not in rounds: each one that ends frees its slot for the next due
 * job at once. Merchants are served in turn, and one merchant holds at most `perMerchant` slots, so
 * a merchant whose endpoints hang (each attempt bounded by RELAY_TIMEOUT_MS) never holds up another's.
 */
export class RelayWorker {
  private readonly running = new Set<Promise<void>>();
  private readonly busy = new Map<string, number>();

  /** A database outage fails every poll and every attempt's record: each line at most five a minute. */
  private readonly leaseFailed: (fields: Record<string, unknown>) => void;
  private readonly notRecorded: (fields: Record<string, unknown>) => void;

  constructor(private readonly opts: RelayWorkerOptions) {
    this.leaseFailed = repeatedLine(opts.logger, 'warn', 'relay lease failed');
    this.notRecorded = repeatedLine(opts.logger, 'error', 'relay attempt could not be recorded');
  }

  /** One round: fills the free slots with due jobs; resolves with the delay until the next. */
  async tick(): Promise<number> {
    const taken = await this.fill().catch((error: unknown) => {
      this.leaseFailed({ err: error });
      return 0;
    });
    // Slots still free and jobs taken: more may be due. Otherwise look again after the poll interval.
    return taken > 0 && this.running.size < this.window ? 0 : this.opts.pollMs;
  }

  /** Fills slots in `delayMs` unless that is already set for sooner (a job was queued, a slot freed). */
  wake(delayMs = 0): void {
    this.opts.wake(delayMs);
  }

  /** Waits for the attempts in flight, once the loop runs no more rounds. */
  async settle(): Promise<void> {
    await Promise.all(this.running);
  }

  /**
   * For a record that just became final: its relay job, when its client asked for one, was queued
   * by the write itself, so only a lease soon is needed, not the next poll.
   */
  wakeFor(record: Disbursement): void {
    if (relayUrl(record)) this.wake(0);
  }

  private get window(): number {
    return this.opts.window ?? 32;
  }

  /** Fills the free slots with due jobs. Resolves with how many it took. */
  private async fill(): Promise<number> {
    const { queue, leaseMs, perMerchant = 8 } = this.opts;
    const free = this.window - this.running.size;
    if (free <= 0) return 0;
    const now = Date.now();
    const jobs = await queue.lease(new Date(now), free, new Date(now + leaseMs), { perMerchant, busy: this.busy });
    for (const job of jobs) this.launch(job);
    return jobs.length;
  }

  private launch(job: LeasedRelayJob): void {
    const { merchantId } = job;
    this.busy.set(merchantId, (this.busy.get(merchantId) ?? 0) + 1);
    const attempt = this.deliver(job)
      .catch((error: unknown) =>
        this.opts.logger.warn({ err: error, referenceId: job.referenceId }, 'relay attempt failed'),
      )
      .finally(() => {
        this.running.delete(attempt);
        const held = (this.busy.get(merchantId) ?? 1) - 1;
        if (held > 0) this.busy.set(merchantId, held);
        else this.busy.delete(merchantId);
        // A slot is free: the next due job may take it now.
        this.wake(0);
      });
    this.running.add(attempt);
  }

  private async deliver(job: LeasedRelayJob): Promise<void> {
    const { queue, sender, noteAttempt, logger, maxAttempts } = this.opts;
    const number = job.attempts + 1;
    // A new trace per attempt (it runs long after the payout's own), linked to the payout's create.
    const { attempt, refused, cause } = await traced(
      'relay attempt',
      {
        kind: SpanKind.CLIENT,
        parent: ROOT_CONTEXT,
        links: linksTo(job.traceparent),
        attributes: { 'merchant.id': job.merchantId, 'payout.reference_id': job.referenceId, 'relay.attempt': number },
      },
      async (span) => {
        const outcome = await sender.send(job);
        span?.setAttributes({
          'http.response.status_code': outcome.attempt.status ?? 0,
          'relay.refused': outcome.refused,
        });
        return outcome;
      },
    );
    const delivered = attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;
    // A refused target stays refused: asking again would only probe the same address.
    const gaveUp = !delivered && (refused || number >= maxAttempts);
    try {
      const stored = await noteAttempt(job.merchantId, job.referenceId, { url: job.url, delivered, gaveUp, attempt });
      logger.info(
        {
          referenceId: job.referenceId,
          requestId: job.requestId,
          attempt: number,
          status: attempt.status,
          cause,
          delivered,
          gaveUp,
        },
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
      this.notRecorded({ err: error, referenceId: job.referenceId });
    }
  }
}
