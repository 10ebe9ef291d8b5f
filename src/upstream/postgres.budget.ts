import type { Pool } from 'pg';
import { pgQuery } from '../database/postgres.query';
import { claim, pause, POSTGRES_CLOCK, sweep, take, takePair } from './budget.statements';
import { BudgetLedger, Take } from './provider.budget';

/** Claims made before expired ones are swept. */
const SWEEP_EVERY = 1000;

/**
 * Provider budgets shared by every replica: a take is one call of `provider_budget_take`
 * (postgres.migrations.ts), which locks the budget's row for the moment it counts; time is the
 * server's own, so replicas with drifting clocks share one bucket.
 */
export class PostgresBudgetLedger implements BudgetLedger {
  private claims = 0;

  constructor(private readonly pool: Pool) {}

  async take(key: string, perMinute: number, read: boolean): Promise<Take> {
    const { rows } = await pgQuery<{ taken: boolean; wait_ms: string; paused: boolean }>(
      this.pool,
      take(key, perMinute, read),
      'budget-take',
    );
    const [row] = rows;
    return row.taken ? { taken: true } : { taken: false, waitMs: Number(row.wait_ms), paused: row.paused };
  }

  async takePair(key: string, perMinute: number): Promise<{ first: Take; second: boolean }> {
    const { rows } = await pgQuery<{ taken: boolean; wait_ms: string; paused: boolean; second: boolean }>(
      this.pool,
      takePair(key, perMinute),
      'budget-take-pair',
    );
    const [row] = rows;
    const first: Take = row.taken ? { taken: true } : { taken: false, waitMs: Number(row.wait_ms), paused: row.paused };
    return { first, second: row.second };
  }

  async pause(key: string, ms: number): Promise<void> {
    await pgQuery(this.pool, pause(POSTGRES_CLOCK, key, Math.ceil(ms)));
  }

  async claim(key: string, ms: number): Promise<boolean> {
    this.claims += 1;
    // Expired claims are swept now and then; one that lingers only costs its row.
    if (this.claims % SWEEP_EVERY === 0) await pgQuery(this.pool, sweep(POSTGRES_CLOCK));
    const { rowCount } = await pgQuery(this.pool, claim(POSTGRES_CLOCK, key, ms));
    return rowCount === 1;
  }

  async close(): Promise<void> {}
}
