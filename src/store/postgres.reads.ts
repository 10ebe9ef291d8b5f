import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { EntryKey } from '../disbursements/audit.entry';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { Disbursement } from '../disbursements/disbursement.model';
import {
  AuditPage,
  AuditQuery,
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
import { dollar, Statement } from './postgres.statements';
import { numbered } from '../database/sql.dialect';
import { PayoutWrites } from './payout.writes';
import { Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { beneficiaryPage, GET } from './postgres.beneficiaries';
import {
  auditPageSql,
  CHANGE_HEAD,
  CHANGES_AFTER,
  CREATED_BETWEEN,
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
  latestCheckpoints: numbered(LATEST_CHECKPOINTS),
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
 * What PostgresStore reads, and how it sends a statement: each statement, BEGIN and COMMIT is one
 * round trip, counted in `databaseCalls`; what PostgreSQL cannot answer is a StoreUnavailableError.
 */
export abstract class PostgresReads extends PayoutWrites implements RecordsReader {
  protected readonly pool: Pool;
  protected readonly now: () => number;
  protected readonly retentionMs: number;
  protected readonly eventRetentionMs: number;
  /** Pool clients given an error listener of their own (see connect). */
  private readonly heard = new WeakSet<PoolClient>();
  databaseCalls = 0;

  constructor(protected readonly opts: PostgresStoreOptions) {
    super();
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

  async beneficiary(merchantId: string, id: string): Promise<Beneficiary | undefined> {
    const [row] = await this.query<{ record: string }>('beneficiary-get', GET, [merchantId, id]);
    return row && (JSON.parse(row.record) as Beneficiary);
  }

  async beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return beneficiaryPage((sql, values) => this.query(undefined, sql, values), merchantId, query);
  }

  async unsignedHeads(): Promise<MerchantChainHead[]> {
    const rows = await this.query<{ merchant_id: string; audit_sequence: string; audit_hash: string }>(
      'unsigned-heads',
      PG.unsignedHeads,
      [],
    );
    return rows.map((r) => ({ merchantId: r.merchant_id, sequence: Number(r.audit_sequence), hash: r.audit_hash }));
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
      'SELECT record FROM payouts WHERE due_at <= $1 AND (leased_until IS NULL OR leased_until <= $1) ORDER BY due_at LIMIT $2',
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

  async healthy(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {}

  protected async current(
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

  protected send<R extends QueryResultRow>(statement: Statement): Promise<R[]> {
    return this.query<R>(statement.name, statement.text, statement.values);
  }

  /** One statement, prepared once per connection under `name` when it has one. */
  protected async query<R extends QueryResultRow>(
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

  /** A client for one transaction; taking an idle one is no round trip, its statements are. */
  protected async connect() {
    let client: PoolClient;
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

  protected failure(error: unknown): unknown {
    if (error instanceof StoreUnavailableError || !isOutage(error)) return error;
    this.opts.onOutage?.(error);
    return new StoreUnavailableError('the database is unreachable', { cause: error });
  }
}
