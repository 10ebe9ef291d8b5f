import type { QueryResultRow } from 'pg';
import { AuditDraft } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import {
  AuditCheckpointStore,
  BeneficiaryStore,
  BeneficiaryWrite,
  DisbursementStore,
  RecordsReader,
} from '../disbursements/disbursement.ports';
import { appendStatement } from './postgres.statements';
import { pruneBatch } from './postgres.retention';
import { Beneficiary } from '../disbursements/beneficiary.model';
import { ChangeRefused, insertBeneficiaryRow, Sql, updateBeneficiaryRow } from './postgres.beneficiaries';
import { PostgresReads } from './postgres.reads';
import { PostgresSteps } from './postgres.steps';

/**
 * The store shared by replicas, on PostgreSQL. The payout writes are every engine's (payout.writes.ts);
 * here each step is one statement in autocommit, one round trip (postgres.steps.ts): a create is a
 * claim and the answer's write, a callback one write (two when the row must be read first). The
 * gateway keys each audit entry before sending it; the database numbers and links it from the
 * merchant's head row, whose lock is held only inside the server until that statement commits. The
 * change log's positions and notifications and the chain's links come from triggers
 * (postgres.migrations.ts), so they commit with the change or not at all. `databaseCalls` counts
 * round trips: each statement, BEGIN and COMMIT.
 */
export class PostgresStore
  extends PostgresReads
  implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore
{
  protected readonly entryKey = this.opts.entryKey;

  protected readonly steps = new PostgresSteps((statement) => this.send(statement));

  async insertBeneficiary(write: BeneficiaryWrite): Promise<{ duplicate?: Beneficiary }> {
    const { merchantId } = write.beneficiary;
    return this.inBookLock(merchantId, async (sql, append) => ({
      duplicate: await insertBeneficiaryRow(sql, write, append),
    }));
  }

  async updateBeneficiary(
    merchantId: string,
    id: string,
    change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  ): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
    return this.inBookLock(merchantId, (sql, append) => updateBeneficiaryRow(sql, merchantId, id, change, append));
  }

  /**
   * `work` in one transaction that holds the merchant's book lock from its start, given how to run a
   * statement in it and how to append audit entries (one statement, the work's last, so the
   * merchant's audit head row is locked only for the COMMIT). BEGIN, each statement and COMMIT are
   * round trips: a beneficiary write takes 5 or 6.
   */
  private async inBookLock<T>(
    merchantId: string,
    work: (sql: Sql, append: (drafts: readonly AuditDraft[]) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const client = await this.connect();
    const sql: Sql = async <R extends QueryResultRow>(text: string, values: unknown[]) => {
      this.databaseCalls += 1;
      return (await client.query<R>(text, values)).rows;
    };
    try {
      await sql('BEGIN', []);
      await sql('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [JSON.stringify(['book', merchantId])]);
      const append = async (drafts: readonly AuditDraft[]) => {
        if (drafts.length > 0) {
          const { text, values } = appendStatement(merchantId, this.keyed(merchantId, drafts));
          await sql(text, values);
        }
      };
      const result = await work(sql, append);
      await sql('COMMIT', []);
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      // What the change itself threw is the caller's answer, never an outage.
      throw error instanceof ChangeRefused ? error.refusal : this.failure(error);
    } finally {
      client.release();
    }
  }

  async addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    if (checkpoints.length === 0) return;
    await this.query(
      undefined,
      // The gateway's role may not INSERT there (postgres.migrations.ts, version 7).
      'SELECT audit_checkpoint_add($1::json)',
      [
        JSON.stringify(
          checkpoints.map((c) => ({
            merchant_id: c.merchantId,
            sequence: c.sequence,
            hash: c.hash,
            at: c.at,
            signature: c.signature,
            key_id: c.keyId,
          })),
        ),
      ],
    );
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
