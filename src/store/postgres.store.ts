import type { Pool, QueryResultRow } from 'pg';
import { Disbursement, Reservation } from '../disbursements/disbursement.model';
import {
  DisbursementStore,
  HistoryPage,
  HistoryQuery,
  LoggedChange,
  START_POSITION,
  StoreUnavailableError,
} from '../disbursements/disbursement.ports';
import { isPublished, shownOnInsert } from '../disbursements/disbursement.record';
import { LimitRefusal, releasedByRemoval, releasing, ReservationCaps } from '../disbursements/payout.controls';
import { isOutage } from '../database/postgres.failures';
import { createdAtOf, historyCondition, historyPageSql, payoutColumns } from './payout.row';

export interface PostgresStoreOptions {
  pool: Pool;
  /** RECORD_RETENTION_SECONDS in ms: final records not written for this long go (0: kept forever). */
  retentionMs?: number;
  /** EVENT_RETENTION_SECONDS in ms: how long the change log keeps a change. Default one day. */
  eventRetentionMs?: number;
  now?: () => number;
  /** Told of each call that failed because PostgreSQL could not answer. */
  onOutage?: (error: unknown) => void;
}

const dollar = (index: number) => `$${index}`;

/** A write's values after the keys: the row's columns, in the order the statements name them. */
function columnValues(record: Disbursement, writtenAt: number): unknown[] {
  const c = payoutColumns(record, writtenAt);
  return [c.written_at, c.status, c.channel, c.currency, c.amount_minor, c.final, c.next_check_at, c.record];
}

const INSERT = `
WITH inserted AS (
  INSERT INTO payouts (merchant_id, reference_id, created_at, written_at, status, channel, currency, amount_minor,
    final, next_check_at, revision, record)
  VALUES ($1, $2, $11, $3, $4, $5, $6, $7, $8, $9, 1, $10)
  ON CONFLICT (merchant_id, reference_id) DO NOTHING
  RETURNING merchant_id
), logged AS (
  INSERT INTO payout_changes (merchant_id, at, record) SELECT merchant_id, $3, $10 FROM inserted WHERE $12::boolean
)
SELECT count(*)::int AS done FROM inserted`;

/** The write of a record read at revision $11; a release gives its reservation back ($12..$15), a log entry is added when published. */
function updateSql(release: boolean, published: boolean): string {
  return `
WITH updated AS (
  UPDATE payouts SET written_at = $3, status = $4, channel = $5, currency = $6, amount_minor = $7, final = $8,
    next_check_at = $9, record = $10, revision = revision + 1
  WHERE merchant_id = $1 AND reference_id = $2 AND revision = $11
  RETURNING merchant_id
)${release ? RELEASE('updated') : ''}${
    published
      ? `, logged AS (INSERT INTO payout_changes (merchant_id, at, record) SELECT merchant_id, $3, $10 FROM updated)`
      : ''
  }
SELECT count(*)::int AS done FROM updated`;
}

const RELEASE = (after: string) => `, released AS (
  UPDATE daily_reservations SET minor = minor - $12
  WHERE merchant_id = $1 AND day = $13 AND currency = $14 AND actor_id IN ('', $15) AND EXISTS (SELECT 1 FROM ${after})
)`;

function removeSql(release: boolean): string {
  return `
WITH removed AS (
  DELETE FROM payouts WHERE merchant_id = $1 AND reference_id = $2 AND revision = $11 RETURNING merchant_id
)${release ? RELEASE('removed') : ''}
SELECT count(*)::int AS done FROM removed`;
}

const releaseValues = (held: Reservation | undefined) =>
  held ? [held.minor, held.day, held.currency, held.actorId] : [];

/**
 * The store shared by replicas, on PostgreSQL. A read-modify-write reads the record and its revision,
 * runs the change, and writes it in one statement only if the revision is still the one read (its
 * reservation release and change-log entry in the same statement); a write that lost the race runs
 * the change again on the record as it now is. The change log's positions and notifications come
 * from triggers (schema.migrations.ts), so they commit with the change or not at all.
 */
export class PostgresStore implements DisbursementStore {
  private readonly pool: Pool;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly eventRetentionMs: number;
  reads = 0;

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

  async insertIfAbsent(record: Disbursement): Promise<Disbursement | undefined> {
    for (;;) {
      const [{ done }] = await this.query<{ done: number }>('insert', INSERT, this.insertValues(record));
      if (done === 1) return undefined;
      // Another write holds the referenceId; it may have gone again by now, then try once more.
      const existing = await this.get(record.merchantId, record.referenceId);
      if (existing) return existing;
    }
  }

  async insertReserving(
    record: Disbursement,
    caps: ReservationCaps,
  ): Promise<{ existing?: Disbursement; refused?: LimitRefusal }> {
    const held = record.reservation;
    if (!held) return { existing: await this.insertIfAbsent(record) };
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      // One reservation at a time per merchant, day and currency: the check and the hold are one step.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `${record.merchantId}\u0000${held.day}\u0000${held.currency}`,
      ]);
      const existing = await client.query<{ record: string }>(
        'SELECT record FROM payouts WHERE merchant_id = $1 AND reference_id = $2',
        [record.merchantId, record.referenceId],
      );
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
      const merchant = minorOf('');
      const actor = minorOf(held.actorId);
      let refused: LimitRefusal | undefined;
      if (caps.dailyMinor !== undefined && merchant + held.minor > caps.dailyMinor)
        refused = { limit: 'dailyLimit', remainingMinor: Math.max(0, caps.dailyMinor - merchant) };
      else if (caps.userMinor !== undefined && actor + held.minor > caps.userMinor)
        refused = { limit: 'userDailyLimit', remainingMinor: Math.max(0, caps.userMinor - actor) };
      if (refused) {
        await client.query('COMMIT');
        return { refused };
      }
      await client.query(INSERT, this.insertValues(record));
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
  ): Promise<Disbursement | undefined> {
    for (;;) {
      const current = await this.current(merchantId, referenceId);
      if (!current) return undefined;
      const next = change(current.record);
      if (!next) return current.record;
      const { record, release } = releasing(next);
      const published = isPublished(current.record, record);
      const [{ done }] = await this.query<{ done: number }>(
        `update-${release ? 'r' : ''}${published ? 'p' : ''}`,
        updateSql(release !== undefined, published),
        [merchantId, referenceId, ...columnValues(record, this.now()), current.revision, ...releaseValues(release)],
      );
      if (done === 1) return record;
    }
  }

  async remove(merchantId: string, referenceId: string, expected: (current: Disbursement) => boolean): Promise<void> {
    for (;;) {
      const current = await this.current(merchantId, referenceId);
      if (!current || !expected(current.record)) return;
      const release = releasedByRemoval(current.record);
      // The revision is $11, as in the update: the values in between are unused by this statement.
      const values = [
        merchantId,
        referenceId,
        ...Array<null>(8).fill(null),
        current.revision,
        ...releaseValues(release),
      ];
      const [{ done }] = await this.query<{ done: number }>(
        `remove-${release ? 'r' : ''}`,
        removeSql(release !== undefined),
        values,
      );
      if (done === 1) return;
    }
  }

  async due(now: Date, limit: number): Promise<Disbursement[]> {
    const rows = await this.query<{ record: string }>(
      'due',
      'SELECT record FROM payouts WHERE next_check_at <= $1 ORDER BY next_check_at LIMIT $2',
      [now.getTime(), limit],
    );
    return rows.map((r) => JSON.parse(r.record) as Disbursement);
  }

  async history(merchantId: string, query: HistoryQuery): Promise<HistoryPage> {
    const page = historyPageSql(historyCondition(merchantId, query.filter, query.after, dollar), query, dollar);
    const all = historyCondition(merchantId, query.filter, undefined, dollar);
    const [rows, counted] = await Promise.all([
      this.query<{ created_at: string; reference_id: string; record: string }>(undefined, page.sql, page.values),
      this.query<{ count: number }>(
        undefined,
        `SELECT count(*)::int AS count FROM payouts WHERE ${all.sql}`,
        all.values,
      ),
    ]);
    const entries = rows.slice(0, query.limit).map((r) => ({
      at: Number(r.created_at),
      referenceId: r.reference_id,
      record: JSON.parse(r.record) as Disbursement,
    }));
    const last = entries.at(-1);
    return {
      entries,
      hasMore: rows.length > query.limit,
      endPosition: last ? { at: last.at, referenceId: last.referenceId } : query.after,
      totalCount: counted[0].count,
    };
  }

  async changesAfter(merchantId: string, position: string, limit: number): Promise<LoggedChange[]> {
    const rows = await this.query<{ position: string; record: string }>(
      'changes-after',
      'SELECT position, record FROM payout_changes WHERE merchant_id = $1 AND position > $2 ORDER BY position LIMIT $3',
      [merchantId, position, limit],
    );
    return rows.map((r) => ({ position: r.position, record: JSON.parse(r.record) as Disbursement }));
  }

  async hasChange(merchantId: string, position: string): Promise<boolean> {
    const rows = await this.query(
      'has-change',
      'SELECT 1 FROM payout_changes WHERE merchant_id = $1 AND position = $2',
      [merchantId, position],
    );
    return rows.length > 0;
  }

  async latestChange(merchantId: string): Promise<string> {
    const rows = await this.query<{ change_position: string }>(
      'latest-change',
      'SELECT change_position FROM merchant_heads WHERE merchant_id = $1',
      [merchantId],
    );
    return rows[0]?.change_position ?? START_POSITION;
  }

  /**
   * As SqliteStore.prune: a bounded batch of what retention lets go, and client quotas that ended an
   * hour ago (their table is swept by whoever asks); every replica may run it.
   */
  async prune(now = this.now()): Promise<number> {
    const changes = await this.pool.query(
      `DELETE FROM payout_changes WHERE (merchant_id, position) IN
         (SELECT merchant_id, position FROM payout_changes WHERE at < $1 LIMIT 1000)`,
      [now - this.eventRetentionMs],
    );
    await this.pool.query('DELETE FROM client_quotas WHERE expire < $1', [now - 3600_000]);
    let removed = changes.rowCount ?? 0;
    if (this.retentionMs > 0) {
      const finals = await this.pool.query(
        `DELETE FROM payouts WHERE (merchant_id, reference_id) IN
           (SELECT merchant_id, reference_id FROM payouts WHERE final = 1 AND written_at < $1 LIMIT 1000)`,
        [now - this.retentionMs],
      );
      removed += finals.rowCount ?? 0;
    }
    return removed;
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

  private insertValues(record: Disbursement): unknown[] {
    return [
      record.merchantId,
      record.referenceId,
      ...columnValues(record, this.now()),
      createdAtOf(record),
      shownOnInsert(record),
    ];
  }

  /** One statement, prepared once per connection under `name` when it has one. */
  private async query<R extends QueryResultRow>(
    name: string | undefined,
    text: string,
    values: unknown[],
  ): Promise<R[]> {
    this.reads += 1;
    try {
      return (await this.pool.query<R>(name ? { name, text, values } : { text, values })).rows;
    } catch (error) {
      throw this.failure(error);
    }
  }

  private async connect() {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): unknown {
    if (error instanceof StoreUnavailableError || !isOutage(error)) return error;
    this.opts.onOutage?.(error);
    return new StoreUnavailableError('the database is unreachable', { cause: error });
  }
}
