import type { Pool } from 'pg';
import { POSTGRES_NOW_MS } from '../database/schema.migrations';
import { BudgetLedger, Take } from './provider.budget';

/** Claims made before expired ones are swept. */
const SWEEP_EVERY = 1000;

/**
 * Provider budgets shared by every replica: a take is one call of `provider_budget_take`
 * (schema.migrations.ts), which locks the budget's row for the moment it counts; time is the
 * server's own, so replicas with drifting clocks share one bucket.
 */
export class PostgresBudgetLedger implements BudgetLedger {
  private claims = 0;

  constructor(private readonly pool: Pool) {}

  async take(key: string, perMinute: number, read: boolean): Promise<Take> {
    const { rows } = await this.pool.query<{ taken: boolean; wait_ms: string; paused: boolean }>({
      name: 'budget-take',
      text: 'SELECT taken, wait_ms, paused FROM provider_budget_take($1, $2, $3)',
      values: [key, perMinute, read],
    });
    const [row] = rows;
    return row.taken ? { taken: true } : { taken: false, waitMs: Number(row.wait_ms), paused: row.paused };
  }

  async pause(key: string, ms: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO provider_budgets (key, counted_at, paused_until) VALUES ($1, ${POSTGRES_NOW_MS}, ${POSTGRES_NOW_MS} + $2)
       ON CONFLICT (key) DO UPDATE SET paused_until = greatest(provider_budgets.paused_until, excluded.paused_until)`,
      [key, Math.ceil(ms)],
    );
  }

  async claim(key: string, ms: number): Promise<boolean> {
    this.claims += 1;
    // Expired claims are swept now and then; one that lingers only costs its row.
    if (this.claims % SWEEP_EVERY === 0)
      await this.pool.query(`DELETE FROM provider_claims WHERE until_at <= ${POSTGRES_NOW_MS}`);
    const { rowCount } = await this.pool.query(
      `INSERT INTO provider_claims AS c (key, until_at) VALUES ($1, ${POSTGRES_NOW_MS} + $2)
       ON CONFLICT (key) DO UPDATE SET until_at = excluded.until_at WHERE c.until_at <= ${POSTGRES_NOW_MS}`,
      [key, ms],
    );
    return rowCount === 1;
  }

  async close(): Promise<void> {}
}
