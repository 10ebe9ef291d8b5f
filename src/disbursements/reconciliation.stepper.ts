import { Merchant } from './disbursement.ports';
import { reconciliationStep, ReconciliationParts } from './reconciliation.run';

export interface ReconciliationStepperOptions extends ReconciliationParts {
  merchantById: (id: string) => Merchant | undefined;
  intervalMs: number;
  /** How long a replica holds a run for one step before another may take it. */
  leaseMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Moves reconciliation runs along, a step at a time, on every replica: each round takes one run no
 * replica holds, steps it, and saves it. A run whose replica died is taken by another once its
 * lease ends, and resumes after the last payout it saved.
 */
export class ReconciliationStepper {
  constructor(private readonly opts: ReconciliationStepperOptions) {}

  /** One round, its failure reported; resolves with the delay until the next. */
  async tick(): Promise<number> {
    await this.stepOne().catch((error: unknown) => this.opts.onError?.(error));
    return this.opts.intervalMs;
  }

  /** One round; true when it stepped a run. */
  async stepOne(): Promise<boolean> {
    const { runs, ctx } = this.opts;
    const now = ctx.now().getTime();
    const held = await runs.lease(now, now + (this.opts.leaseMs ?? 30_000));
    if (!held) return false;
    const merchant = this.opts.merchantById(held.merchantId);
    if (!merchant) {
      await runs.save(
        { ...held, state: 'FAILED', failure: 'its merchant is no longer configured', finishedAt: now },
        [],
      );
      return true;
    }
    const { run, found } = await reconciliationStep(this.opts, merchant, held);
    await runs.save(run, found);
    return true;
  }
}
