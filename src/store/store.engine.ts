import { Dialect } from '../database/sql.dialect';
import { AuditCheckpoint } from '../disbursements/audit.keys';
import { StatementLine } from '../disbursements/disbursement.ports';
import { BookStatements } from './beneficiary.write';
import { PayoutSteps } from './payout.steps';
import { Read } from './store.read';

/** Payouts named by their key. */
export type PayoutKey = { merchantId: string; referenceId: string };

/**
 * What an engine gives the one store (payout.store.ts): how it runs a read, a payout write step and
 * the book's statements, and what only it knows (its health, its retention batch, how it adds
 * checkpoints, a statement's sums). The store decides everything else, once, for every engine:
 * nothing here calls back into it.
 */
export interface StoreEngine {
  readonly dialect: Dialect;
  /** Runs a read's statements and answers from their rows (shared.statements.ts). */
  run<T>(read: Read<T>): Promise<T>;
  /** Executes each payout write step whole, or not at all (payout.steps.ts). */
  readonly steps: PayoutSteps;
  /** Runs the beneficiary book's statements (beneficiary.write.ts). */
  readonly book: BookStatements;
  /** Sums of a merchant's payouts created in a window. */
  statement(merchantId: string, from: number, to: number): Promise<StatementLine[]>;
  /** Keeps signed checkpoints; one already kept for that merchant and sequence stays. */
  addCheckpoints(checkpoints: readonly AuditCheckpoint[]): Promise<void>;
  /**
   * One bounded batch of retention at `now`: removes changes older than `eventBefore`, the day's
   * counters that hold nothing of days past (retention.statements.ts), and what else the engine keeps
   * that expires; answers how many rows went and the final payouts not written since `finalBefore`
   * (none when it is undefined), for the store to remove with one audited erase each.
   */
  prune(
    now: number,
    eventBefore: number,
    finalBefore: number | undefined,
  ): Promise<{ removed: number; finals: PayoutKey[] }>;
  /** Requests sent to the database so far (DisbursementStore.databaseCalls). */
  readonly calls: number;
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}
