import { signCheckpoints } from '../disbursements/audit.checkpoint';
import { AuditSigningKeys } from '../disbursements/audit.keys';
import { AuditCheckpointStore } from '../disbursements/disbursement.ports';
import { Logger } from '../observability/pino.logger';

/**
 * Signs the chain heads that moved at start (so entries from before the chain was keyed are covered
 * at once), every AUDIT_CHECKPOINT_SECONDS, and at stop (so the last entries are signed too).
 */
export class AuditCheckpointer {
  private timer?: NodeJS.Timeout;
  private round: Promise<void> = Promise.resolve();

  constructor(
    private readonly opts: { store: AuditCheckpointStore; keys: AuditSigningKeys; intervalMs: number; logger: Logger },
  ) {}

  async start(): Promise<void> {
    await this.sign();
    this.timer = setInterval(() => void this.sign(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Waits for a round under way, then signs once more. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sign();
  }

  private sign(): Promise<void> {
    this.round = this.round.then(async () => {
      try {
        const signed = await signCheckpoints(this.opts.store, this.opts.keys, new Date());
        if (signed > 0) this.opts.logger.debug({ merchants: signed }, 'audit checkpoints signed');
      } catch (error) {
        this.opts.logger.warn({ err: error }, 'audit checkpoints could not be signed; tried again later');
      }
    });
    return this.round;
  }
}
