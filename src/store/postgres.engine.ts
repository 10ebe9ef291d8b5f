import type { Pool, QueryResultRow } from 'pg';
import { isOutage } from '../database/postgres.failures';
import { compile, preparedName, Sql, sql } from '../database/sql.dialect';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { StoreUnavailableError } from '../disbursements/disbursement.ports';
import { BookStatements } from './beneficiary.write';
import { PayoutStore, StoreOptions } from './payout.store';
import { postgresBook } from './postgres.beneficiaries';
import { pruneBatch } from './postgres.retention';
import { PostgresSteps } from './postgres.steps';
import * as reads from './shared.statements';
import { StoreEngine } from './store.engine';
import { Read, sqlFor } from './store.read';

export interface PostgresStoreOptions extends StoreOptions {
  pool: Pool;
  /** Told of each call that failed because PostgreSQL could not answer. */
  onOutage?: (error: unknown) => void;
}

/** The store shared by replicas, on PostgreSQL (payout.store.ts, with the engine below). */
export function postgresStore(opts: PostgresStoreOptions): PayoutStore {
  return new PayoutStore(new PostgresEngine(opts.pool, opts.onOutage), opts);
}

/**
 * PostgreSQL as a store engine. Each statement is one round trip in autocommit (the engine opens no
 * transaction), prepared once per connection under its name when it has one, and counted in `calls`;
 * what PostgreSQL cannot answer is a StoreUnavailableError. A payout write step is one statement
 * (postgres.steps.ts): the gateway keys each audit entry before sending it, and the database numbers
 * and links it from the merchant's head row, whose lock is held only inside the server until that
 * statement commits. The change log's positions and notifications and the chain's links come from
 * triggers (postgres.migrations.ts), so they commit with the change or not at all.
 */
export class PostgresEngine implements StoreEngine {
  readonly dialect = 'postgres';
  calls = 0;
  readonly steps = new PostgresSteps((statement) => this.query(statement.name, statement.sql));
  /** The beneficiary book's statements, one round trip each (postgres.beneficiaries.ts). */
  readonly book: BookStatements = postgresBook((name, statement) => this.query(name, statement));

  constructor(
    private readonly pool: Pool,
    private readonly onOutage?: (error: unknown) => void,
  ) {}

  /** The read's statements side by side, each one round trip. */
  async run<T>(reading: Read<T>): Promise<T> {
    const results = await Promise.all(reading.statements.map((s) => this.query(s.name, sqlFor(s.sql, 'postgres'))));
    return reading.answer(results);
  }

  statement(merchantId: string, from: number, to: number) {
    return this.run(reads.statement(merchantId, from, to));
  }

  async addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void> {
    if (checkpoints.length === 0) return;
    const rows = checkpoints.map((c) => ({
      merchant_id: c.merchantId,
      sequence: c.sequence,
      hash: c.hash,
      at: c.at,
      signature: c.signature,
      key_id: c.keyId,
    }));
    // The gateway's role may not INSERT there (postgres.migrations.ts, version 7).
    await this.query(undefined, sql`SELECT audit_checkpoint_add(${JSON.stringify(rows)}::json)`);
  }

  /** Also sweeps client quotas that ended an hour ago (their table is swept by whoever asks); every replica may run it. */
  async prune(now: number, eventBefore: number, finalBefore: number | undefined) {
    try {
      return await pruneBatch(this.pool, now, eventBefore, finalBefore);
    } catch (error) {
      throw this.failure(error);
    }
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

  /**
   * One statement; one with a label is prepared once per connection, under the name its label and
   * its text make together (preparedName), so one name never stands for two texts.
   */
  private async query<R extends QueryResultRow>(label: string | undefined, statement: Sql): Promise<R[]> {
    const { text, values } = compile(statement, 'postgres');
    this.calls += 1;
    try {
      const named = label === undefined ? { text, values } : { name: preparedName(label, text), text, values };
      return (await this.pool.query<R>(named)).rows;
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): unknown {
    if (error instanceof StoreUnavailableError || !isOutage(error)) return error;
    this.onOutage?.(error);
    return new StoreUnavailableError('the database is unreachable', { cause: error });
  }
}
