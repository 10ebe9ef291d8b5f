import { appendCheckpoints, readCheckpointFile } from './audit.checkpoint-file';
import { CheckpointWitness, WitnessState } from './audit.witness';
import { signCheckpoints } from '../disbursements/audit.checkpoint';
import { AuditCheckpoint, AuditKeyRing } from '../disbursements/audit.keys';
import { AuditCheckpointStore, DisbursementStore, RecordsReader } from '../disbursements/disbursement.ports';
import { lastKept, trailsBehindKept } from '../disbursements/audit.kept';
import { recordKeyChange } from '../disbursements/audit.key-change';
import { Logger } from '../observability/pino.logger';

/**
 * Signs the chain heads that moved at start (so entries from before the chain was keyed are covered
 * at once), every AUDIT_CHECKPOINT_SECONDS, and at stop (so the last entries are signed too), each
 * kept in AUDIT_CHECKPOINT_FILE as well as the database, and published to the witness
 * (AUDIT_WITNESS_URL) when there is one.
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
      /** AUDIT_WITNESS_URL's publisher: every checkpoint signed goes there too, in the background. */
      witness?: CheckpointWitness;
    },
  ) {}

  async start(): Promise<void> {
    const kept = await this.compareWithFile();
    // What a crash may have left undelivered: each merchant's newest genuine checkpoint covers the rest.
    this.opts.witness?.publish([...kept.values()].flatMap((list) => lastKept(this.opts.keys, list) ?? []));
    await this.markKeyChange();
    await this.sign();
    this.timer = setInterval(() => void this.sign(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Waits for a round under way, then signs once more, and hands what it signed to the witness. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sign();
    await this.opts.witness?.close();
  }

  /** What /readyz says of the witness. */
  witnessState(): WitnessState {
    return this.opts.witness?.state() ?? 'none';
  }

  /**
   * Before signing anything: a trail that no longer reaches what the file signed was cut or rewritten
   * while the gateway was down. Said loudly; the file keeps the higher checkpoint, so audit:verify
   * keeps failing on it whatever is signed after. Answers what the file keeps, by merchant.
   */
  private async compareWithFile(): Promise<ReadonlyMap<string, AuditCheckpoint[]>> {
    const { store, keys, file, logger } = this.opts;
    try {
      const kept = (await readCheckpointFile(file)) ?? new Map<string, AuditCheckpoint[]>();
      const behind = await trailsBehindKept(store, keys, kept);
      if (behind.length > 0)
        logger.error(
          { merchants: behind, file },
          'the audit trail is shorter than, or differs from, what the checkpoint file signed: entries were cut or rewritten; run npm run audit:verify',
        );
      return kept;
    } catch (error) {
      logger.error({ err: error, file }, 'the audit checkpoint file could not be read');
      return new Map();
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
        const signed = await signCheckpoints(store, keys[0], new Date(), async (checkpoints) => {
          await appendCheckpoints(file, checkpoints);
          this.opts.witness?.publish(checkpoints);
        });
        if (signed > 0) this.opts.logger.debug({ merchants: signed }, 'audit checkpoints signed');
      } catch (error) {
        this.opts.logger.warn({ err: error }, 'audit checkpoints could not be signed; tried again later');
      }
    });
    return this.round;
  }
}
