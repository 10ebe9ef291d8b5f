import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { compile } from '../database/sql.dialect';
import { EntryKey } from '../disbursements/audit.entry';
import { Disbursement } from '../disbursements/disbursement.model';
import { StoreUnavailableError } from '../disbursements/disbursement.ports';
import { BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { isOutage } from '../database/postgres.failures';
import { Statement } from './postgres.statements';
import { beneficiaryPage } from './postgres.beneficiaries';
import { current } from './shared.statements';
import { Read, sqlFor } from './store.read';
import { ReadOptions, StoreReads } from './store.reads';

export interface PostgresStoreOptions extends ReadOptions {
  pool: Pool;
  /** The key every audit entry's keyed value is made with, and its id (audit.keys.ts). */
  entryKey: EntryKey;
  /** Told of each call that failed because PostgreSQL could not answer. */
  onOutage?: (error: unknown) => void;
}

/**
 * PostgresStore's reads (store.reads.ts), and how it sends a statement: each statement, BEGIN and
 * COMMIT is one round trip, counted in `databaseCalls`; what PostgreSQL cannot answer is a
 * StoreUnavailableError.
 */
export abstract class PostgresReads extends StoreReads {
  protected readonly pool: Pool;
  /** Pool clients given an error listener of their own (see connect). */
  private readonly heard = new WeakSet<PoolClient>();

  constructor(protected readonly opts: PostgresStoreOptions) {
    super(opts);
    this.pool = opts.pool;
  }

  /** The read's statements side by side, each one round trip. */
  protected async run<T>(reading: Read<T>): Promise<T> {
    const results = await Promise.all(
      reading.statements.map((s) => {
        const { text, values } = compile(sqlFor(s.sql, 'postgres'), 'postgres');
        return this.query(s.name, text, values);
      }),
    );
    return reading.answer(results);
  }

  async beneficiaries(merchantId: string, query: BeneficiaryQuery): Promise<BeneficiaryPage> {
    return beneficiaryPage((sql, values) => this.query(undefined, sql, values), merchantId, query);
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

  protected current(
    merchantId: string,
    referenceId: string,
  ): Promise<{ record: Disbursement; revision: string } | undefined> {
    return this.run(current(merchantId, referenceId));
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
