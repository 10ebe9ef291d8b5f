import { AuditCheckpoint } from '../disbursements/audit.keys';
import { sql } from '../database/sql.dialect';
import {
  AuditCheckpointStore,
  BeneficiaryStore,
  DisbursementStore,
  RecordsReader,
} from '../disbursements/disbursement.ports';
import { pruneBatch } from './postgres.retention';
import { postgresBook } from './postgres.beneficiaries';
import { PostgresReads } from './postgres.reads';
import { PostgresSteps } from './postgres.steps';

/**
 * The store shared by replicas, on PostgreSQL. The payout writes are every engine's (store.writes.ts);
 * here each step is one statement in autocommit, one round trip (postgres.steps.ts): a create is a
 * claim and the answer's write, a callback one write (two when the row must be read first). The
 * gateway keys each audit entry before sending it; the database numbers and links it from the
 * merchant's head row, whose lock is held only inside the server until that statement commits. The
 * change log's positions and notifications and the chain's links come from triggers
 * (postgres.migrations.ts), so they commit with the change or not at all. `databaseCalls` counts
 * round trips: each statement.
 */
export class PostgresStore
  extends PostgresReads
  implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore
{
  protected readonly entryKey = this.opts.entryKey;

  protected readonly steps = new PostgresSteps((statement) => this.send(statement));

  /** The beneficiary book's statements, one round trip each (postgres.beneficiaries.ts). */
  protected readonly book = postgresBook(
    (name, statement) => this.query(name, statement),
    (merchantId, drafts) => this.keyed(merchantId, drafts),
  );

  async addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    if (checkpoints.length === 0) return;
    const rows = checkpoints.map((c) => ({
      merchant_id: c.merchantId,
      sequence: c.sequence,
      hash: c.hash,
      at: c.at,
      signature: c.signature,
      key_id: c.keyId,
    }));
    // The gateway's role may not INSERT there (postgres.migrations.ts, version 7).
    await this.query(undefined, sql`SELECT audit_checkpoint_add(${JSON.stringify(rows)}::json)`);
  }

  /**
   * As SqliteStore.prune: a bounded batch of what retention lets go, and client quotas that ended an
   * hour ago (their table is swept by whoever asks); every replica may run it.
   */
  async prune(now = this.now()): Promise<number> {
    let batch: Awaited<ReturnType<typeof pruneBatch>>;
    try {
      batch = await pruneBatch(this.pool, now, this.eventRetentionMs, this.retentionMs);
    } catch (error) {
      throw this.failure(error);
    }
    return batch.removed + (await this.removeFinals(batch.finals, now, this.retentionMs));
  }
}
