import { appendCheckpoints, readCheckpointFile } from './audit.checkpoint-file';
import { signCheckpoints } from '../disbursements/audit.checkpoint';
import { AuditKeyRing } from '../disbursements/audit.keys';
import { AuditCheckpointStore, DisbursementStore, RecordsReader } from '../disbursements/disbursement.ports';
import { trailsBehindKept } from '../disbursements/audit.kept';
import { recordKeyChange } from '../disbursements/audit.key-change';
import { Logger } from '../observability/pino.logger';

/**
 * Signs the chain heads that moved at start (so entries from before the chain was keyed are covered
 * at once), every AUDIT_CHECKPOINT_SECONDS, and at stop (so the last entries are signed too), each
 * kept in AUDIT_CHECKPOINT_FILE as well as the database.
 */
export class AuditCheckpointer {
  private timer?: NodeJS.Timeout;
  private round: Promise<void> = Promise.resolve();

  constructor(
    private readonly opts: {
      store: AuditCheckpointStore & RecordsReader & Pick<DisbursementStore, 'appendAudit'>;
      /** The first signs; every one verifies the checkpoints kept in the file. */
      keys: AuditKeyRing;
      intervalMs: number;
      logger: Logger;
      /** AUDIT_CHECKPOINT_FILE: every checkpoint is appended there before the database keeps it. */
      file: string;
      /** The merchants served: after a key rotation, each one's trail is re-attested under the key in use. */
      merchantIds: () => readonly string[];
    },
  ) {}

  async start(): Promise<void> {
    await this.compareWithFile();
    await this.markKeyChange();
    await this.sign();
    this.timer = setInterval(() => void this.sign(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Waits for a round under way, then signs once more. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sign();
  }

  /**
   * Before signing anything: a trail that no longer reaches what the file signed was cut or rewritten
   * while the gateway was down. Said loudly; the file keeps the higher checkpoint, so audit:verify
   * keeps failing on it whatever is signed after.
   */
  private async compareWithFile(): Promise<void> {
    const { store, keys, file, logger } = this.opts;
    try {
      const kept = await readCheckpointFile(file);
      const behind = kept ? await trailsBehindKept(store, keys, kept) : [];
      if (behind.length > 0)
        logger.error(
          { merchants: behind, file },
          'the audit trail is shorter than, or differs from, what the checkpoint file signed: entries were cut or rewritten; run npm run audit:verify',
        );
    } catch (error) {
      logger.error({ err: error, file }, 'the audit checkpoint file could not be read');
    }
  }

  /** After a rotation, moves the head of each merchant last signed under another key, so the first round re-attests it. */
  private async markKeyChange(): Promise<void> {
    const { store, keys, merchantIds, logger } = this.opts;
    const changed = await recordKeyChange(store, merchantIds(), keys[0].keyId, new Date());
    if (changed.length > 0)
      logger.info(
        { merchants: changed, auditKeyId: keys[0].keyId },
        'audit key changed: an AUDIT_KEY_CHANGED entry in each merchant chain last signed under another key, re-attested by the checkpoint signed now',
      );
  }

  private sign(): Promise<void> {
    this.round = this.round.then(async () => {
      try {
        const { store, keys, file } = this.opts;
        const signed = await signCheckpoints(store, keys[0], new Date(), (checkpoints) =>
          appendCheckpoints(file, checkpoints),
        );
        if (signed > 0) this.opts.logger.debug({ merchants: signed }, 'audit checkpoints signed');
      } catch (error) {
        this.opts.logger.warn({ err: error }, 'audit checkpoints could not be signed; tried again later');
      }
    });
    return this.round;
  }
}
