import { BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { AuditQuery, HistoryPosition, HistoryQuery, RecordsReader } from '../disbursements/disbursement.ports';
import * as reads from './shared.statements';
import { Read } from './store.read';
import { StoreWrites } from './store.writes';
import { StoredRow } from './payout.steps';

/** What both stores' options say of time and retention. */
export interface ReadOptions {
  /** RECORD_RETENTION_SECONDS in ms: final records not written for this long go (0: kept forever). */
  retentionMs?: number;
  /** EVENT_RETENTION_SECONDS in ms: how long the change log keeps a change. Default one day. */
  eventRetentionMs?: number;
  now?: () => number;
}

/**
 * The store's reads, each written once (shared.statements.ts): an engine says only how it runs a
 * read (`run`), counting each request in `databaseCalls` and answering what the database cannot
 * answer with a StoreUnavailableError.
 */
export abstract class StoreReads extends StoreWrites implements RecordsReader {
  protected readonly now: () => number;

  protected readonly retentionMs: number;

  protected readonly eventRetentionMs: number;

  databaseCalls = 0;

  constructor(options: ReadOptions) {
    super();
    this.now = options.now ?? Date.now;
    this.retentionMs = options.retentionMs ?? 0;
    this.eventRetentionMs = options.eventRetentionMs ?? 24 * 3600_000;
  }

  /** Sends the read's statements and answers from their rows. */
  protected abstract run<T>(read: Read<T>): Promise<T>;

  /** The row a change starts from: its record, its text and its revision. */
  protected row(merchantId: string, referenceId: string): Promise<StoredRow | undefined> {
    return this.run(reads.current(merchantId, referenceId));
  }

  /** The record as stored; the row is remembered, so a change of it that follows need not read it again. */
  async get(merchantId: string, referenceId: string) {
    const row = await this.run(reads.current(merchantId, referenceId));
    this.remember(merchantId, referenceId, row);
    return row?.record;
  }

  getMany(merchantId: string, referenceIds: readonly string[]) {
    return this.run(reads.many(merchantId, referenceIds));
  }

  reserved(merchantId: string, day: string, currency: string, actorId: string) {
    return this.run(reads.reserved(merchantId, day, currency, actorId));
  }

  beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return this.run(reads.beneficiaryPage(merchantId, query));
  }

  beneficiary(merchantId: string, id: string) {
    return this.run(reads.beneficiary(merchantId, id));
  }

  unsignedHeads() {
    return this.run(reads.unsignedHeads());
  }

  auditHead(merchantId: string) {
    return this.run(reads.auditHead(merchantId));
  }

  latestCheckpoints(merchantId: string, limit: number) {
    return this.run(reads.latestCheckpoints(merchantId, limit));
  }

  auditPage(merchantId: string, query: AuditQuery) {
    return this.run(reads.auditPage(merchantId, query));
  }

  statement(merchantId: string, from: number, to: number) {
    return this.run(reads.statement(merchantId, from, to));
  }

  createdBetween(
    merchantId: string,
    window: { from: number; to: number },
    after: HistoryPosition | undefined,
    limit: number,
  ) {
    return this.run(reads.createdBetween(merchantId, window, after, limit));
  }

  writtenSince(merchantId: string, since: number, after: HistoryPosition | undefined, limit: number) {
    return this.run(reads.writtenSince(merchantId, since, after, limit));
  }

  due(now: Date, limit: number, merchantIds?: readonly string[]) {
    return this.run(reads.due(now.getTime(), limit, merchantIds));
  }

  unsent(after: { merchantId: string; referenceId: string } | undefined, limit: number) {
    return this.run(reads.unsent(after, limit));
  }

  waitingWork(now: Date, merchantIds: readonly string[]) {
    return this.run(reads.waitingWork(now.getTime(), merchantIds));
  }

  history(merchantId: string, query: HistoryQuery) {
    return this.run(reads.history(merchantId, query));
  }

  changesAfter(merchantId: string, position: string, limit: number) {
    return this.run(reads.changesAfter(merchantId, position, limit));
  }

  /** A change past the retention is gone for its reader, whether or not the prune has removed it yet. */
  hasChange(merchantId: string, position: string) {
    return this.run(reads.hasChange(merchantId, position, this.now() - this.eventRetentionMs));
  }

  latestChange(merchantId: string) {
    return this.run(reads.latestChange(merchantId));
  }
}
