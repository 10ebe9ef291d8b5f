import type { Pool, QueryResultRow } from 'pg';
import { compile, Sql } from '../database/sql.dialect';
import { EntryKey } from '../disbursements/audit.entry';
import { StoreUnavailableError } from '../disbursements/disbursement.ports';
import { isOutage } from '../database/postgres.failures';
import { Statement } from './postgres.statements';
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
 * PostgresStore's reads (store.reads.ts), and how it sends a statement: each statement is one round
 * trip in autocommit (the store opens no transaction), counted in `databaseCalls`; what PostgreSQL
 * cannot answer is a StoreUnavailableError.
 */
export abstract class PostgresReads extends StoreReads {
  protected readonly pool: Pool;

  constructor(protected readonly opts: PostgresStoreOptions) {
    super(opts);
    this.pool = opts.pool;
  }

  /** The read's statements side by side, each one round trip. */
  protected async run<T>(reading: Read<T>): Promise<T> {
    const results = await Promise.all(reading.statements.map((s) => this.query(s.name, sqlFor(s.sql, 'postgres'))));
    return reading.answer(results);
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

  protected send<R extends QueryResultRow>(statement: Statement): Promise<R[]> {
    return this.query<R>(statement.name, statement.sql);
  }

  /** One statement, prepared once per connection under `name` when it has one. */
  protected async query<R extends QueryResultRow>(name: string | undefined, statement: Sql): Promise<R[]> {
    const { text, values } = compile(statement, 'postgres');
    this.databaseCalls += 1;
    try {
      return (await this.pool.query<R>(name ? { name, text, values } : { text, values })).rows;
    } catch (error) {
      throw this.failure(error);
    }
  }

  protected failure(error: unknown): unknown {
    if (error instanceof StoreUnavailableError || !isOutage(error)) return error;
    this.opts.onOutage?.(error);
    return new StoreUnavailableError('the database is unreachable', { cause: error });
  }
}
