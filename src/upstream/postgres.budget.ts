import type { Pool } from 'pg';
import { numbered } from '../database/sql.dialect';
import { claim, pause, sweep, TAKE, TAKE_PAIR } from './budget.statements';
import { BudgetLedger, Take } from './provider.budget';

const Q = {
  take: numbered(TAKE),
  takePair: numbered(TAKE_PAIR),
  pause: numbered(pause('postgres')),
  claim: numbered(claim('postgres')),
  sweep: numbered(sweep('postgres')),
};

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
    const { rows } = await this.pool.query<{ taken: boolean; wait_ms: string; paused: boolean }>({
      name: 'budget-take',
      text: Q.take,
      values: [key, perMinute, read],
    });
    const [row] = rows;
    return row.taken ? { taken: true } : { taken: false, waitMs: Number(row.wait_ms), paused: row.paused };
  }

  async takePair(key: string, perMinute: number): Promise<{ first: Take; second: boolean }> {
    const { rows } = await this.pool.query<{ taken: boolean; wait_ms: string; paused: boolean; second: boolean }>({
      name: 'budget-take-pair',
      text: Q.takePair,
      values: [key, perMinute, key, perMinute],
    });
    const [row] = rows;
    const first: Take = row.taken ? { taken: true } : { taken: false, waitMs: Number(row.wait_ms), paused: row.paused };
    return { first, second: row.second };
  }

  async pause(key: string, ms: number): Promise<void> {
    await this.pool.query(Q.pause, [key, Math.ceil(ms)]);
  }

  async claim(key: string, ms: number): Promise<boolean> {
    this.claims += 1;
    // Expired claims are swept now and then; one that lingers only costs its row.
    if (this.claims % SWEEP_EVERY === 0) await this.pool.query(Q.sweep);
    const { rowCount } = await this.pool.query(Q.claim, [key, ms]);
    return rowCount === 1;
  }

  async close(): Promise<void> {}
}
