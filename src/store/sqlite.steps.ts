import { KeyedDraft } from '../disbursements/audit.entry';
import { dailyLimitRefusal } from '../disbursements/daily-limit.refusal';
import { Disbursement, Reservation } from '../disbursements/disbursement.model';
import { claimRow, eraseRow, PayoutColumns, rewriteRow } from './payout.row';
import { sql } from '../database/sql.dialect';
import { SqliteRunner } from '../database/sqlite.prepared';
import { enqueueOne } from '../database/relay-jobs.statements';
import { ClaimAnswer, ClaimStep, EraseStep, PayoutSteps, RewriteStep, RowVersion } from './payout.steps';
import { MerchantHeads } from './sqlite.heads';
import { current, reserved } from './shared.statements';
import { Read } from './store.read';

/** A write in the file's next group commit: its result, and the record it logged, told of after commit. */
export type GroupWrite = <T>(work: () => { result: T; logged?: Disbursement }) => Promise<T>;

/**
 * The payout steps on the embedded file: each runs synchronously in one savepoint of the next group
 * commit, so nothing else of this process runs between its statements. A claim is its insert (and
 * its hold's counters), its audit entries and, for a payout a client sees at once, its change-log
 * entry; a rewrite or an erase runs only while the row is at the version read, as on PostgreSQL.
 */
export class SqliteSteps implements PayoutSteps {
  private readonly write: GroupWrite;
  /** Runs one of the store's reads now, inside the write under way. */
  private readonly read: <T>(reading: Read<T>) => T;

  constructor(
    private readonly q: SqliteRunner,
    private readonly heads: MerchantHeads,
    runs: { write: GroupWrite; read: <T>(reading: Read<T>) => T },
  ) {
    this.write = runs.write;
    this.read = runs.read;
  }

  claim({ record, columns, hold, logged, audit }: ClaimStep): Promise<ClaimAnswer> {
    const { merchantId, referenceId } = record;
    return this.write<ClaimAnswer>(() => {
      if (this.q.run(claimRow(record, columns)).changes === 0)
        return { result: { claimed: false, existing: this.read(current(merchantId, referenceId))?.record } };
      if (hold) {
        const { day, currency, actorId } = hold.held;
        const counters = this.read(reserved(merchantId, day, currency, actorId));
        if (dailyLimitRefusal(hold.caps, counters, hold.held.minor)) {
          // Refused: the row just inserted goes again, inside this step, so nobody ever saw it.
          this.removed({ merchantId, referenceId, revision: '1' });
          return { result: { claimed: false, refusedAt: counters } };
        }
        this.count(merchantId, hold.held, 1);
      }
      return {
        result: { claimed: true },
        logged: this.appended(merchantId, audit, logged ? [record, columns] : undefined),
      };
    });
  }

  rewrite({ at, record, columns, release, logged, relay, audit }: RewriteStep): Promise<boolean> {
    return this.write(() => {
      const { merchantId, referenceId } = at;
      if (this.q.run(rewriteRow(at, columns)).changes === 0) return { result: false };
      if (release) this.count(merchantId, release, -1);
      if (relay) this.q.run(enqueueOne(columns.written_at, JSON.stringify(relay), merchantId, referenceId));
      return { result: true, logged: this.appended(merchantId, audit, logged ? [record, columns] : undefined) };
    });
  }

  erase({ at, release, audit }: EraseStep): Promise<boolean> {
    return this.write(() => {
      if (!this.removed(at)) return { result: false };
      if (release) this.count(at.merchantId, release, -1);
      this.appended(at.merchantId, audit);
      return { result: true };
    });
  }

  append(merchantId: string, audit: readonly KeyedDraft[]): Promise<void> {
    return this.write(() => {
      this.appended(merchantId, audit);
      return { result: undefined };
    });
  }

  private removed(at: RowVersion): boolean {
    return this.q.run(eraseRow(at)).changes === 1;
  }

  /** Adds (1) or gives back (-1) a reservation; a counter that holds nothing goes with the prune once its day is past. */
  private count(merchantId: string, held: Reservation, sign: 1 | -1): void {
    const { day, currency } = held;
    for (const actor of ['', held.actorId])
      this.q.run(sql`INSERT INTO daily_reservations (merchant_id, day, currency, actor_id, minor)
        VALUES (${merchantId}, ${day}, ${currency}, ${actor}, ${sign * held.minor})
        ON CONFLICT (merchant_id, day, currency, actor_id) DO UPDATE SET minor = minor + excluded.minor`);
  }

  /**
   * The step's audit entries and, with `change`, the record's change-log entry, appended from the
   * merchant's head, and the head row written once; answers the logged record, told of after commit.
   * Inside a write under way only (the beneficiary book's writes append their entries through it too).
   */
  appended(
    merchantId: string,
    audit: readonly KeyedDraft[],
    change?: [Disbursement, PayoutColumns],
  ): Disbursement | undefined {
    const head = this.heads.open(merchantId);
    const logged = change && head.log(...change);
    head.audit(audit);
    head.close();
    return logged;
  }
}
