import { QueryResultRow } from 'pg';
import { KeyedDraft } from '../disbursements/audit.entry';
import { Disbursement } from '../disbursements/disbursement.model';
import { ClaimAnswer, ClaimStep, EraseStep, PayoutSteps, RewriteStep } from './payout.steps';
import {
  appendStatement,
  claimStatement,
  ClaimRow,
  eraseStatement,
  rewriteStatement,
  Statement,
} from './postgres.statements';

/** How the PostgreSQL engine sends one statement, one round trip. */
export type Send = <R extends QueryResultRow>(statement: Statement) => Promise<R[]>;

/** The payout steps on PostgreSQL: each one statement in autocommit, one round trip (postgres.statements.ts). */
export class PostgresSteps implements PayoutSteps {
  constructor(private readonly send: Send) {}

  async claim(step: ClaimStep): Promise<ClaimAnswer> {
    const [row] = await this.send<ClaimRow>(claimStatement(step));
    if (row.done === 1) return { claimed: true };
    if (row.existing !== null) return { claimed: false, existing: JSON.parse(row.existing) as Disbursement };
    if (row.reserved === false)
      return { claimed: false, refusedAt: { merchant: Number(row.merchant_minor), actor: Number(row.actor_minor) } };
    return { claimed: false };
  }

  async rewrite(step: RewriteStep): Promise<boolean> {
    const [{ done }] = await this.send<{ done: number }>(rewriteStatement(step));
    return done === 1;
  }

  async erase(step: EraseStep): Promise<boolean> {
    const [{ done }] = await this.send<{ done: number }>(eraseStatement(step));
    return done === 1;
  }

  async append(merchantId: string, audit: readonly KeyedDraft[]): Promise<void> {
    await this.send(appendStatement(merchantId, audit));
  }
}
