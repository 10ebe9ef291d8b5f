import { Disbursement } from './disbursement.model';
import { DisbursementStore, Merchant } from './disbursement.ports';

/** What the due loop asks to do what is due for one record (the service, which dispatches on its kind). */
export interface DueTarget {
  runDue(merchant: Merchant, record: Disbursement): Promise<Disbursement | undefined>;
  /** Takes a due record for this replica until `until`; undefined when another replica took it first. */
  lease(record: Disbursement, until: Date): Promise<Disbursement | undefined>;
}

export interface DueLoopOptions {
  service: DueTarget;
  store: DisbursementStore;
  merchantById: (id: string) => Merchant | undefined;
  /** The merchants served now: only their due work is read, so a removed merchant's rows block no one. */
  merchantIds: () => readonly string[];
  /** How long after a round the next one runs. */
  intervalMs: number;
  /** Records looked at per round. */
  batchSize?: number;
  /** Records worked on at once (status checks, sends), so a backlog cannot flood the provider. */
  concurrency?: number;
  /** How long a replica holds a record it is checking before another may try. */
  leaseMs?: number;
  onError?: (error: unknown) => void;
  /** Told how many records were due in each round (the backlog metric). */
  onBacklog?: (due: number) => void;
  /** The domain's clock (the service's); default the system clock. */
  now?: () => Date;
}

/**
 * Does what is due, when it is due: checks UNKNOWN payouts, stale claims and PENDING payouts whose
 * callback is overdue with the provider, ends approvals nobody gave in time, and sends scheduled
 * payouts at their time (the service dispatches on each record's due kind). Each record is leased
 * before its step runs, so replicas sharing a store do not work on the same payout at once.
 */
export class DueLoop {
  private readonly now: () => Date;

  constructor(private readonly opts: DueLoopOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  /** One round, its failure reported; resolves with the delay until the next. */
  async tick(signal: AbortSignal): Promise<number> {
    await this.checkDue(signal).catch((error: unknown) => this.opts.onError?.(error));
    return this.opts.intervalMs;
  }

  /** One round; returns how many records it worked on. Once `signal` aborts, it starts no more. */
  async checkDue(signal?: AbortSignal): Promise<number> {
    const { store, batchSize = 100, concurrency = 8 } = this.opts;
    const due = await store.due(this.now(), batchSize, this.opts.merchantIds());
    this.opts.onBacklog?.(due.length);
    let checked = 0;
    for (let i = 0; i < due.length && !signal?.aborted; i += concurrency) {
      const results = await Promise.all(due.slice(i, i + concurrency).map((r) => this.check(r)));
      checked += results.filter(Boolean).length;
    }
    return checked;
  }

  private async check(record: Disbursement): Promise<boolean> {
    const merchant = this.opts.merchantById(record.merchantId);
    if (!merchant) return false;
    const current = await this.opts.service.lease(
      record,
      new Date(this.now().getTime() + (this.opts.leaseMs ?? 30_000)),
    );
    if (!current) return false;
    await this.opts.service.runDue(merchant, current);
    return true;
  }
}
