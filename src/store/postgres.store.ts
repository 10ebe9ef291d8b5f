import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { AuditDraft, AuditEntry, chainedAll, EntryKey } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement, isFinal } from '../disbursements/disbursement.model';
import { removedByRetention } from '../disbursements/audit.rules';
import {
  AuditPage,
  AuditCheckpointStore,
  AuditQuery,
  AuditRule,
  DisbursementStore,
  HistoryEntry,
  HistoryPage,
  HistoryPosition,
  HistoryQuery,
  LoggedChange,
  MerchantChainHead,
  RecordsReader,
  ScheduledWaiting,
  START_POSITION,
  StatementLine,
  StoreUnavailableError,
} from '../disbursements/disbursement.ports';
import { isPublished } from '../disbursements/disbursement.record';
import { relayJobOf } from '../disbursements/relay.job';
import { dailyLimitRefusal } from '../disbursements/daily-limit.refusal';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import { isOutage } from '../database/postgres.failures';
import {
  auditCondition,
  AuditRow,
  checkpointOf,
  CheckpointRow,
  entryOf,
  historyCondition,
  historyEntryOf,
  historyPageSql,
  HistoryRow,
} from './payout.row';
import {
  appendStatement,
  dollar,
  insertStatement,
  removeStatement,
  Statement,
  updateStatement,
} from './postgres.statements';
import { pruneBatch } from './postgres.retention';
import { numbered } from '../database/sql.dialect';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { BeneficiaryStore, BeneficiaryWrite } from '../disbursements/disbursement.ports';
import {
  beneficiaryPage,
  ChangeRefused,
  GET,
  insertBeneficiaryRow,
  updateBeneficiaryRow,
} from './postgres.beneficiaries';
import {
  AUDIT_HEAD,
  auditPageSql,
  CHANGE_HEAD,
  CHANGES_AFTER,
  CREATED_BETWEEN,
  GET_RECORD,
  HAS_CHANGE,
  historyCountSql,
  LATEST_CHECKPOINTS,
  SCHEDULED_WAITING,
  UNSIGNED_HEADS,
  WRITTEN_SINCE,
} from './shared.statements';

/** The statements both stores share, numbered for PostgreSQL once. */
const PG = {
  changesAfter: numbered(CHANGES_AFTER),
  hasChange: numbered(HAS_CHANGE),
  changeHead: numbered(CHANGE_HEAD),
  auditHead: numbered(AUDIT_HEAD),
  latestCheckpoints: numbered(LATEST_CHECKPOINTS),
  getRecord: numbered(GET_RECORD),
  unsignedHeads: numbered(UNSIGNED_HEADS),
  scheduledWaiting: numbered(SCHEDULED_WAITING),
  createdBetween: numbered(CREATED_BETWEEN),
  writtenSince: numbered(WRITTEN_SINCE),
};

export interface PostgresStoreOptions {
  pool: Pool;
  /** The key every audit entry's keyed value is made with, and its id (audit.keys.ts). */
  entryKey: EntryKey;
  /** RECORD_RETENTION_SECONDS in ms: final records not written for this long go (0: kept forever). */
  retentionMs?: number;
  /** EVENT_RETENTION_SECONDS in ms: how long the change log keeps a change. Default one day. */
  eventRetentionMs?: number;
  now?: () => number;
  /** Told of each call that failed because PostgreSQL could not answer. */
  onOutage?: (error: unknown) => void;
}

/**
 * The store shared by replicas, on PostgreSQL. A read-modify-write reads the record and its revision,
 * runs the change, and writes it in one statement only if the revision is still the one read (its
 * reservation release, change-log entry and relay job in the same statement); a write that lost the race runs
 * the change again on the record as it now is. The change log's positions and notifications come
 * from triggers (postgres.migrations.ts), so they commit with the change or not at all.
 */
export class PostgresStore implements DisbursementStore, RecordsReader, AuditCheckpointStore, BeneficiaryStore {
  private readonly pool: Pool;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly eventRetentionMs: number;
  /** Pool clients given an error listener of their own (see connect). */
  private readonly heard = new WeakSet<PoolClient>();
  databaseCalls = 0;

  constructor(private readonly opts: PostgresStoreOptions) {
    this.pool = opts.pool;
    this.now = opts.now ?? Date.now;
    this.retentionMs = opts.retentionMs ?? 0;
    this.eventRetentionMs = opts.eventRetentionMs ?? 24 * 3600_000;
  }

  async get(merchantId: string, referenceId: string): Promise<Disbursement | undefined> {
    return (await this.current(merchantId, referenceId))?.record;
  }

  async getMany(merchantId: string, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]> {
    const rows = await this.query<{ reference_id: string; record: string }>(
      'get-many',
      'SELECT reference_id, record FROM payouts WHERE merchant_id = $1 AND reference_id = ANY($2::text[])',
      [merchantId, referenceIds],
    );
    const found = new Map(rows.map((r) => [r.reference_id, r.record]));
    return referenceIds.map((id) => {
      const json = found.get(id);
      return json === undefined ? undefined : (JSON.parse(json) as Disbursement);
    });
  }

  async insertIfAbsent(record: Disbursement, audit: readonly AuditDraft[] = []): Promise<Disbursement | undefined> {
    for (;;) {
      const [{ done }] = await this.sendAudited<{ done: number }>(record.merchantId, audit, (entries) =>
        insertStatement(record, this.now(), entries),
      );
      if (done === 1) return undefined;
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
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      // One reservation at a time per merchant, day and currency: the check and the hold are one step.
      // The key is JSON, which tells the parts apart and, unlike a NUL separator, PostgreSQL text can hold.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        JSON.stringify([record.merchantId, held.day, held.currency]),
      ]);
      const existing = await client.query<{ record: string }>(PG.getRecord, [record.merchantId, record.referenceId]);
      if (existing.rows[0]) {
        await client.query('COMMIT');
        return { existing: JSON.parse(existing.rows[0].record) as Disbursement };
      }
      const counters = await client.query<{ actor_id: string; minor: string }>(
        `SELECT actor_id, minor FROM daily_reservations
         WHERE merchant_id = $1 AND day = $2 AND currency = $3 AND actor_id IN ('', $4)`,
        [record.merchantId, held.day, held.currency, held.actorId],
      );
      const minorOf = (actor: string) => Number(counters.rows.find((r) => r.actor_id === actor)?.minor ?? 0);
      const refused = dailyLimitRefusal(caps, { merchant: minorOf(''), actor: minorOf(held.actorId) }, held.minor);
      if (refused) {
        await client.query('COMMIT');
        return { refused };
      }
      // Named like send()'s writes, so the connection prepares this shape once.
      await this.chainIn(client, record.merchantId, audit, (entries) => insertStatement(record, this.now(), entries));
      await client.query(
        `INSERT INTO daily_reservations (merchant_id, day, currency, actor_id, minor)
         VALUES ($1, $2, $3, '', $5), ($1, $2, $3, $4, $5)
         ON CONFLICT (merchant_id, day, currency, actor_id) DO UPDATE SET minor = daily_reservations.minor + excluded.minor`,
        [record.merchantId, held.day, held.currency, held.actorId, held.minor],
      );
      await client.query('COMMIT');
      return {};
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.failure(error);
    } finally {
      client.release();
    }
  }

  async reserved(
    merchantId: string,
    day: string,
    currency: string,
    actorId: string,
  ): Promise<{ merchant: number; actor: number }> {
    const rows = await this.query<{ actor_id: string; minor: string }>(
      'reserved',
      `SELECT actor_id, minor FROM daily_reservations
       WHERE merchant_id = $1 AND day = $2 AND currency = $3 AND actor_id IN ('', $4)`,
      [merchantId, day, currency, actorId],
    );
    const minorOf = (actor: string) => Number(rows.find((r) => r.actor_id === actor)?.minor ?? 0);
    return { merchant: minorOf(''), actor: minorOf(actorId) };
  }

  async update(
    merchantId: string,
    referenceId: string,
    change: (current: Disbursement) => Disbursement | undefined,
    audit?: AuditRule,
  ): Promise<Disbursement | undefined> {
    for (;;) {
      const current = await this.current(merchantId, referenceId);
      if (!current) return undefined;
      const next = change(current.record);
      if (!next) return current.record;
      const { record, release } = releasing(next);
      const keys = { merchantId, referenceId, revision: current.revision };
      const published = isPublished(current.record, record);
      const relay = relayJobOf(current.record, record);
      const [{ done }] = await this.sendAudited<{ done: number }>(
        merchantId,
        audit?.(current.record, record) ?? [],
        (entries) => updateStatement(keys, record, this.now(), { release, published, relay, audit: entries }),
      );
      if (done === 1) return record;
    }
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
      const [{ done }] = await this.sendAudited<{ done: number }>(
        merchantId,
        audit?.(current.record) ?? [],
        (entries) => removeStatement(keys, { release: released, audit: entries }),
      );
      if (done === 1) return;
    }
  }

  async appendAudit(merchantId: string, entries: readonly AuditDraft[]): Promise<void> {
    if (entries.length > 0)
      await this.sendAudited(merchantId, entries, (chained) => appendStatement(merchantId, chained));
  }

  async beneficiary(merchantId: string, id: string): Promise<Beneficiary | undefined> {
    const [row] = await this.query<{ record: string }>('beneficiary-get', GET, [merchantId, id]);
    return row && (JSON.parse(row.record) as Beneficiary);
  }

  async insertBeneficiary(write: BeneficiaryWrite): Promise<{ duplicate?: Beneficiary }> {
    const { merchantId } = write.beneficiary;
    return this.inAuditLock(merchantId, async (client, append) => ({
      duplicate: await insertBeneficiaryRow(client, write, append),
    }));
  }

  async updateBeneficiary(
    merchantId: string,
    id: string,
    change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  ): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
    return this.inAuditLock(merchantId, (client, append) =>
      updateBeneficiaryRow(client, merchantId, id, change, append),
    );
  }

  async beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return beneficiaryPage((sql, values) => this.query(undefined, sql, values), merchantId, query);
  }

  /**
   * `work` in one transaction that holds the merchant's audit lock from its start (before any row
   * lock, as every audited write), given how to append entries to the chain inside it.
   */
  private async inAuditLock<T>(
    merchantId: string,
    work: (client: PoolClient, append: (drafts: readonly AuditDraft[]) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        JSON.stringify(['audit', merchantId]),
      ]);
      const append = async (drafts: readonly AuditDraft[]) => {
        if (drafts.length > 0)
          await this.chainIn(client, merchantId, drafts, (entries) => appendStatement(merchantId, entries));
      };
      const result = await work(client, append);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      // What the change itself threw is the caller's answer, never an outage.
      throw error instanceof ChangeRefused ? error.refusal : this.failure(error);
    } finally {
      client.release();
    }
  }

  async unsignedHeads(): Promise<MerchantChainHead[]> {
    const rows = await this.query<{ merchant_id: string; audit_sequence: string; audit_hash: string }>(
      'unsigned-heads',
      PG.unsignedHeads,
      [],
    );
    return rows.map((r) => ({ merchantId: r.merchant_id, sequence: Number(r.audit_sequence), hash: r.audit_hash }));
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

  async auditHead(merchantId: string): Promise<{ sequence: number; hash: string } | undefined> {
    const [head] = await this.query<{ audit_sequence: string; audit_hash: string }>(
      'audit-head-read',
      'SELECT audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = $1 AND audit_sequence > 0',
      [merchantId],
    );
    return head && { sequence: Number(head.audit_sequence), hash: head.audit_hash };
  }

  async latestCheckpoints(merchantId: string, limit: number): Promise<AuditCheckpoint[]> {
    const rows = await this.query<CheckpointRow>('latest-checkpoints', PG.latestCheckpoints, [merchantId, limit]);
    return rows.map(checkpointOf);
  }

  async auditPage(merchantId: string, query: AuditQuery): Promise<AuditPage> {
    const where = auditCondition(merchantId, query, dollar);
    const rows = await this.query<AuditRow>(undefined, auditPageSql(where.sql, dollar(where.values.length + 1)), [
      ...where.values,
      query.limit + 1,
    ]);
    return { entries: rows.slice(0, query.limit).map(entryOf), hasMore: rows.length > query.limit };
  }

  async statement(merchantId: string, from: number, to: number): Promise<StatementLine[]> {
    const rows = await this.query<{ currency: string; status: StatementLine['status']; count: number; minor: string }>(
      'statement',
      `SELECT currency, status, count(*)::int AS count, sum(amount_minor) AS minor FROM payouts
       WHERE merchant_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY currency, status ORDER BY currency, status`,
      [merchantId, from, to],
    );
    return rows.map((r) => ({ currency: r.currency, status: r.status, count: r.count, amountMinor: Number(r.minor) }));
  }

  async createdBetween(
    merchantId: string,
    window: { from: number; to: number },
    after: HistoryPosition | undefined,
    limit: number,
  ): Promise<HistoryEntry[]> {
    const rows = await this.query<HistoryRow>('created-between', PG.createdBetween, [
      merchantId,
      window.from,
      window.to,
      after?.at ?? window.from - 1,
      after?.referenceId ?? '',
      limit,
    ]);
    return rows.map(historyEntryOf);
  }

  async writtenSince(
    merchantId: string,
    since: number,
    after: HistoryPosition | undefined,
    limit: number,
  ): Promise<HistoryEntry[]> {
    const rows = await this.query<HistoryRow>('written-since', PG.writtenSince, [
      merchantId,
      since,
      after?.at ?? -1,
      after?.referenceId ?? '',
      limit,
    ]);
    return rows.map(historyEntryOf);
  }

  async due(now: Date, limit: number): Promise<Disbursement[]> {
    const rows = await this.query<{ record: string }>(
      'due',
      'SELECT record FROM payouts WHERE next_check_at <= $1 ORDER BY next_check_at LIMIT $2',
      [now.getTime(), limit],
    );
    return rows.map((r) => JSON.parse(r.record) as Disbursement);
  }

  async scheduledWaiting(): Promise<ScheduledWaiting> {
    const [row] = await this.query<{ count: string; earliest: string | null }>(
      'scheduled_waiting',
      PG.scheduledWaiting,
      [],
    );
    return { count: Number(row.count), earliestDueAt: row.earliest === null ? undefined : Number(row.earliest) };
  }

  async history(merchantId: string, query: HistoryQuery): Promise<HistoryPage> {
    const page = historyPageSql(historyCondition(merchantId, query.filter, query.after, dollar), query, dollar);
    const all = historyCondition(merchantId, query.filter, undefined, dollar);
    const [rows, counted] = await Promise.all([
      this.query<HistoryRow>(undefined, page.sql, page.values),
      this.query<{ count: string }>(undefined, historyCountSql(all.sql), all.values),
    ]);
    const entries = rows.slice(0, query.limit).map(historyEntryOf);
    const last = entries.at(-1);
    return {
      entries,
      hasMore: rows.length > query.limit,
      endPosition: last ? { at: last.at, referenceId: last.referenceId } : query.after,
      totalCount: Number(counted[0].count),
    };
  }

  async changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]> {
    const rows = await this.query<{ position: string; record: string }>('changes-after', PG.changesAfter, [
      merchantId,
      position,
      limit,
    ]);
    return rows.map((r) => ({ position: r.position, record: JSON.parse(r.record) as Disbursement }));
  }

  async hasChange(merchantId: string, position: string): Promise<boolean> {
    // A change past the retention is gone for its reader, whether or not the prune has removed it yet.
    const rows = await this.query('has-change', PG.hasChange, [
      merchantId,
      position,
      this.now() - this.eventRetentionMs,
    ]);
    return rows.length > 0;
  }

  async latestChange(merchantId: string): Promise<string> {
    const rows = await this.query<{ change_position: string }>('latest-change', PG.changeHead, [merchantId]);
    return rows[0]?.change_position ?? START_POSITION;
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

  async healthy(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {}

  private async current(
    merchantId: string,
    referenceId: string,
  ): Promise<{ record: Disbursement; revision: string } | undefined> {
    const [row] = await this.query<{ revision: string; record: string }>(
      'get',
      'SELECT revision, record FROM payouts WHERE merchant_id = $1 AND reference_id = $2',
      [merchantId, referenceId],
    );
    return row && { revision: row.revision, record: JSON.parse(row.record) as Disbursement };
  }

  /**
   * The statement `build` makes of the drafts once they are numbered, linked and keyed here, in one
   * transaction (chainIn); without drafts, the statement alone.
   */
  private async sendAudited<R extends QueryResultRow>(
    merchantId: string,
    drafts: readonly AuditDraft[],
    build: (entries: readonly AuditEntry[]) => Statement,
  ): Promise<R[]> {
    if (drafts.length === 0) return this.send<R>(build([]));
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      const rows = await this.chainIn<R>(client, merchantId, drafts, build);
      await client.query('COMMIT');
      return rows;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.failure(error);
    } finally {
      client.release();
    }
  }

  /**
   * Inside the client's transaction: takes the merchant's audit lock (held to commit, so a replica
   * appending meanwhile waits and the head read stays the head), chains the drafts after the head
   * with the key only the gateway holds, and runs what `build` makes of them. The lock is taken
   * before any row lock, as every audited write does, so none waits on another in a cycle.
   */
  private async chainIn<R extends QueryResultRow>(
    client: PoolClient,
    merchantId: string,
    drafts: readonly AuditDraft[],
    build: (entries: readonly AuditEntry[]) => Statement,
  ): Promise<R[]> {
    if (drafts.length > 0)
      await client.query({
        name: 'audit-lock',
        text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
        values: [JSON.stringify(['audit', merchantId])],
      });
    const { rows: heads } =
      drafts.length > 0
        ? await client.query<{ audit_sequence: string; audit_hash: string }>({
            name: 'audit-head',
            text: PG.auditHead,
            values: [merchantId],
          })
        : { rows: [] };
    const head = heads[0] && Number(heads[0].audit_sequence) > 0 ? heads[0] : undefined;
    const previous = head && { sequence: Number(head.audit_sequence), hash: head.audit_hash };
    const entries = chainedAll(previous, drafts, this.opts.entryKey);
    return (await client.query<R>(build(entries))).rows;
  }

  private send<R extends QueryResultRow>(statement: Statement): Promise<R[]> {
    return this.query<R>(statement.name, statement.text, statement.values);
  }

  /** One statement, prepared once per connection under `name` when it has one. */
  private async query<R extends QueryResultRow>(
    name: string | undefined,
    text: string,
    values: unknown[],
  ): Promise<R[]> {
    this.databaseCalls += 1;
    try {
      return (await this.pool.query<R>(name ? { name, text, values } : { text, values })).rows;
    } catch (error) {
      throw this.failure(error);
    }
  }

  /** A client for one transaction, counted as one call. */
  private async connect() {
    let client: PoolClient;
    this.databaseCalls += 1;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failure(error);
    }
    // The pool hears a connection's error only while it is idle: one broken while checked out would
    // emit it unheard and end the process. The query under way fails on its own.
    if (!this.heard.has(client)) {
      client.on('error', (error) => void this.failure(error));
      this.heard.add(client);
    }
    return client;
  }

  private failure(error: unknown): unknown {
    if (error instanceof StoreUnavailableError || !isOutage(error)) return error;
    this.opts.onOutage?.(error);
    return new StoreUnavailableError('the database is unreachable', { cause: error });
  }
}
