import { GroupCommit } from '../database/sqlite.group-commit';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement } from '../disbursements/disbursement.model';
import { MerchantHeads } from './sqlite.heads';
import {
  AuditCheckpointStore,
  BeneficiaryStore,
  DisbursementStore,
  RecordsReader,
} from '../disbursements/disbursement.ports';
import { sqliteBook } from './sqlite.beneficiaries';
import { codeOf, SqliteReads, SqliteStoreOptions, unavailable } from './sqlite.reads';
import { SqliteSteps } from './sqlite.steps';
import { sql } from '../database/sql.dialect';
import { finalBefore } from './retention.statements';

/** Changes past the event retention, a bounded batch at a time. */
const pruneChanges = (before: number) =>
  sql`DELETE FROM payout_changes WHERE rowid IN (SELECT rowid FROM payout_changes WHERE at < ${before} LIMIT 1000)`;

type FinalRow = { merchant_id: string; reference_id: string };
const finalOf = (row: FinalRow) => ({ merchantId: row.merchant_id, referenceId: row.reference_id });

/** A write the disk refused: full, or an I/O error. */
const DISK_REFUSED = /^SQLITE_(FULL|IOERR)/;
/** Free space the file's file system needs, after a refused write, before the store says ready again. */
const FREE_TO_RESUME_BYTES = 1024 * 1024;

/**
 * The embedded store: one process on one SQLite file (better-sqlite3). A read runs synchronously; a
 * write runs synchronously too, in its own savepoint of the file's next group commit (nothing else of
 * this process runs in between, and no other process opens the file), and its promise settles once
 * its group is committed. The payout writes are every engine's (store.writes.ts); this file gives
 * them the steps that run them here (sqlite.steps.ts).
 */
export class SqliteStore
  extends SqliteReads
  implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore
{
  private readonly writes: GroupCommit;

  /** The last write was refused by the disk (full, I/O error) and none has succeeded since: not ready. */
  private writesRefused = false;

  constructor(opts: SqliteStoreOptions) {
    super(opts);
    this.writes = opts.file.writes;
  }

  protected readonly entryKey = this.opts.entryKey;

  private readonly heads = new MerchantHeads(this.db);

  protected readonly steps = new SqliteSteps(
    this.q,
    this.heads,
    (work) => this.write(work),
    (reading) => this.sync(reading),
  );

  /** The beneficiary book's statements on this file (sqlite.beneficiaries.ts). */
  protected readonly book = sqliteBook({
    q: this.q,
    read: (work) => this.guarded(work),
    write: (work) => this.write(() => ({ result: work() })),
    append: (merchantId, drafts) => void this.steps.appended(merchantId, this.keyed(merchantId, drafts)),
  });

  async addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    return this.write(() => {
      for (const c of checkpoints)
        this.q.run(sql`INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature, key_id)
          VALUES (${c.merchantId}, ${c.sequence}, ${c.hash}, ${c.at}, ${c.signature}, ${c.keyId})
          ON CONFLICT (merchant_id, sequence) DO NOTHING`);
      return { result: undefined };
    });
  }

  /**
   * Removes what retention lets go, a bounded batch at a time: final records not written for
   * RECORD_RETENTION_SECONDS (when set), and changes older than EVENT_RETENTION_SECONDS.
   * Returns how many rows went.
   */
  async prune(now = this.now()): Promise<number> {
    const changes = await this.write(() => ({ result: this.q.run(pruneChanges(now - this.eventRetentionMs)).changes }));
    if (this.retentionMs === 0) return changes;
    const finals = this.guarded(() => this.q.all<FinalRow>(finalBefore(now - this.retentionMs)));
    return changes + (await this.removeFinals(finals.map(finalOf), now, this.retentionMs));
  }

  /**
   * Ready while the file answers and its writes go through. After the disk refused a write, ready
   * again once its file system has FREE_TO_RESUME_BYTES free (a one-page write could pass where a
   * payout's would not) and a write succeeds: each check is then itself a write (the header's
   * user_version, which the schema does not use), so space coming back is seen with no traffic.
   */
  async healthy(): Promise<boolean> {
    try {
      if (!this.writesRefused) {
        this.q.get(sql`SELECT 1`);
        return true;
      }
      if (!this.db.memory) {
        const { bavail, bsize } = statfsSync(dirname(this.db.name));
        if (bavail * bsize < FREE_TO_RESUME_BYTES) return false;
      }
      await this.write(() => {
        const probes = this.db.pragma('user_version', { simple: true }) as number;
        this.db.pragma(`user_version = ${(probes + 1) % 0x7fffffff}`);
        return { result: undefined };
      });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {}

  /** A write in the file's next group commit; the change it logged is told once that is committed. */
  private async write<T>(work: () => { result: T; logged?: Disbursement }): Promise<T> {
    let done: { result: T; logged?: Disbursement };
    this.databaseCalls += 1;
    try {
      done = await this.writes.write(() => {
        try {
          return work();
        } catch (error) {
          // Rolled back alone: the head rows it may have moved in memory are not in the file.
          this.heads.forget();
          throw error;
        }
      });
      this.writesRefused = false;
    } catch (error) {
      // Rolled back with its group, or alone: the heads in memory may be ahead of the file.
      this.heads.forget();
      if (DISK_REFUSED.test(codeOf(error))) this.writesRefused = true;
      throw unavailable(error);
    }
    if (done.logged) this.opts.onChange?.(done.logged);
    return done.result;
  }
}
