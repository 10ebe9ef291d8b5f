import { AuditDraft, KeyedDraft, keyed } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement, isFinal } from '../disbursements/disbursement.model';
import { removedByRetention } from '../disbursements/audit.rules';
import {
  AuditCheckpointStore,
  AuditRule,
  BeneficiaryStore,
  BeneficiaryWrite,
  DisbursementStore,
  RecordsReader,
} from '../disbursements/disbursement.ports';
import { isPublished } from '../disbursements/disbursement.record';
import { relayJobOf } from '../disbursements/relay.job';
import { dailyLimitRefusal } from '../disbursements/daily-limit.refusal';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import {
  appendStatement,
  insertStatement,
  removeStatement,
  reservingStatement,
  ReservingRow,
  updateStatement,
} from './postgres.statements';
import { pruneBatch } from './postgres.retention';
import { Beneficiary } from '../disbursements/beneficiary.model';
import { postgresBook } from './postgres.beneficiaries';
import { insertBeneficiary, updateBeneficiary } from './beneficiary.write';
import { PostgresReads } from './postgres.reads';
import { RecentRows } from './recent.rows';

/**
 * The store shared by replicas, on PostgreSQL. Every payout write is one statement in autocommit, one
 * round trip (postgres.statements.ts): a claim with its daily reservation and audit entries; a
 * read-modify-write reads the record and its revision, runs the change, and writes it only if the
 * revision is still the one read (its reservation release, change-log entry, relay job and audit
 * entries in the same statement), so 2 round trips; 1 when this process wrote the row last and nobody
 * has since (recent.rows.ts: the read is skipped). A write that lost the race runs the change again
 * on the record as it now is. The gateway keys each audit entry before sending it (audit.entry.ts
 * `keyed`); the database numbers and links it from the merchant's head row, whose lock is held only
 * inside the server until that statement commits. The change log's positions and notifications and
 * the chain's links come from triggers (postgres.migrations.ts), so they commit with the change or
 * not at all. `databaseCalls` counts round trips: each statement.
 */
export class PostgresStore
  extends PostgresReads
  implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore
{
  private readonly recent = new RecentRows();

  async insertIfAbsent(record: Disbursement, audit: readonly AuditDraft[] = []): Promise<Disbursement | undefined> {
    for (;;) {
      const insert = insertStatement(record, this.now(), this.keyed(record.merchantId, audit));
      const [{ done }] = await this.send<{ done: number }>(insert);
      if (done === 1) {
        this.remember(record, insert.written, '1');
        return undefined;
      }
      // Another write holds the referenceId; it may have gone again by now, then try once more.
      const existing = await this.get(record.merchantId, record.referenceId);
      if (existing) return existing;
    }
  }

  async insertReserving(
    record: Disbursement,
    caps: ReservationCaps,
    audit: readonly AuditDraft[] = [],
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }> {
    const held = record.reservation;
    if (!held) return { existing: await this.insertIfAbsent(record, audit) };
    for (;;) {
      const claim = reservingStatement(record, held, caps, this.now(), this.keyed(record.merchantId, audit));
      const [row] = await this.send<ReservingRow>(claim);
      if (row.existing !== null) return { existing: JSON.parse(row.existing) as Disbursement };
      if (row.done === 1) {
        this.remember(record, claim.written, '1');
        return {};
      }
      if (!row.reserved) {
        const refused = dailyLimitRefusal(
          caps,
          { merchant: Number(row.merchant_minor), actor: Number(row.actor_minor) },
          held.minor,
        );
        if (refused) return { refused };
        throw new Error('payout_reserve refused a hold the caps allow');
      }
      // Held, but a claim of the same payout not serialised with this one (another day's counters)
      // committed first: its hold stays counted, which only ever refuses more; read that claim.
    }
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
    audit?: AuditRule,
  ): Promise<Disbursement | undefined> {
    // The row as this process last wrote it, if it did: tried first, without reading it.
    let known = this.recent.get(merchantId, referenceId);
    for (;;) {
      const remembered = known;
      known = undefined;
      const current = remembered ?? (await this.current(merchantId, referenceId));
      if (!current) return undefined;
      const next = change(current.record);
      // Nothing to change in what this process wrote: the row may have moved on since, so it is read.
      if (!next && remembered) continue;
      if (!next) return current.record;
      const { record, release } = releasing(next);
      const keys = { merchantId, referenceId, revision: current.revision, written: remembered?.written };
      const published = isPublished(current.record, record);
      const relay = relayJobOf(current.record, record);
      const entries = this.keyed(merchantId, audit?.(current.record, record) ?? []);
      const write = updateStatement(keys, record, this.now(), { release, published, relay, audit: entries });
      const [{ done }] = await this.send<{ done: number }>(write);
      if (done === 1) {
        this.remember(record, write.written, String(Number(current.revision) + 1));
        return record;
      }
    }
  }

  /** The row as this write left it, so the next write of it need not read it (recent.rows.ts). */
  private remember(record: Disbursement, written: string, revision: string): void {
    this.recent.set(record.merchantId, record.referenceId, { record, written, revision });
  }

  async remove(
    merchantId: string,
    referenceId: string,
    expected: (current: Disbursement) => boolean,
    audit?: (current: Disbursement) => readonly AuditDraft[],
  ): Promise<void> {
    await this.removeRow(merchantId, referenceId, expected, audit, true);
  }

  /** Removes the row while `expected` holds for it, with its entries; `release`: its unreleased reservation too. */
  private async removeRow(
    merchantId: string,
    referenceId: string,
    expected: (current: Disbursement) => boolean,
    audit: ((current: Disbursement) => readonly AuditDraft[]) | undefined,
    release: boolean,
  ): Promise<void> {
    for (;;) {
      const current = await this.current(merchantId, referenceId);
      if (!current || !expected(current.record)) return;
      const keys = { merchantId, referenceId, revision: current.revision };
      const released = release ? releasedByRemoval(current.record) : undefined;
      const entries = this.keyed(merchantId, audit?.(current.record) ?? []);
      const [{ done }] = await this.send<{ done: number }>(
        removeStatement(keys, { release: released, audit: entries }),
      );
      if (done === 1) return this.recent.forget(merchantId, referenceId);
    }
  }

  async appendAudit(merchantId: string, entries: readonly AuditDraft[]): Promise<void> {
    if (entries.length > 0) await this.send(appendStatement(merchantId, this.keyed(merchantId, entries)));
  }

  async insertBeneficiary(write: BeneficiaryWrite): Promise<{ duplicate?: Beneficiary }> {
    return insertBeneficiary(this.book, write);
  }

  async updateBeneficiary(
    merchantId: string,
    id: string,
    change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  ): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
    return updateBeneficiary(this.book, merchantId, id, change);
  }

  /** The beneficiary book's statements, one round trip each (postgres.beneficiaries.ts). */
  private readonly book = postgresBook(
    (name, { text, values }) => this.query(name, text, values),
    (merchantId, drafts) => this.keyed(merchantId, drafts),
  );

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
    const audit = removedByRetention(new Date(now).toISOString(), this.retentionMs / 1000);
    // As before retention was audited, a removed payout's reservation stays counted for its day.
    for (const { merchantId, referenceId } of batch.finals)
      await this.removeRow(merchantId, referenceId, (current) => isFinal(current.status), audit, false);
    return batch.removed + batch.finals.length;
  }

  /** The drafts of one write, each given an id and keyed for the merchant with the key only the gateway holds. */
  private keyed(merchantId: string, drafts: readonly AuditDraft[]): KeyedDraft[] {
    return drafts.map((draft) => keyed(merchantId, draft, this.opts.entryKey));
  }
}
