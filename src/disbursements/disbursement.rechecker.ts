import { DomainContext } from './disbursement.context';
import { Disbursement, ProviderRecord } from './disbursement.model';
import { DisbursementStore, Merchant } from './disbursement.ports';
import { markNeverReceived } from './disbursement.record';
import { applyProviderAnswer } from './disbursement.answer';
import { auditedAs } from './disbursement.context';
import {
  claimEnded,
  notFoundMeansNeverReceived,
  notFoundYet,
  withNextCheck,
  stillSending,
} from './disbursement.checks';

/**
 * The rechecker's step for one due record: ask the provider and apply the answer.
 * A payout the provider does not have is asked about again while its last send may still be on its
 * way in (RESEND_AFTER_SECONDS); after that it is no longer checked (an UNKNOWN one says so in its
 * history): only the client's retry of the same request may send it, after asking once more.
 */
export async function recheckStep(
  ctx: DomainContext,
  merchant: Merchant,
  record: Disbursement,
): Promise<Disbursement | undefined> {
  const { referenceId } = record;
  const { writer, policy } = ctx;
  let answer: ProviderRecord | undefined;
  try {
    answer = await ctx.provider.checkStatus(merchant, referenceId, 'reconcile');
  } catch {
    const now = ctx.now();
    const written = await writer.change(merchant.id, referenceId, (current) =>
      withNextCheck(
        {
          ...(stillSending(current, now, policy) ? current : claimEnded(current, policy)),
          checkAttempts: current.checkAttempts + 1,
        },
        now,
        policy,
      ),
    );
    return written.stored;
  }
  const found = answer;
  const written = await writer.change(
    merchant.id,
    referenceId,
    (current) => {
      const now = ctx.now();
      if (stillSending(current, now, policy)) return undefined;
      if (!found) {
        if (!notFoundMeansNeverReceived(current, now, policy)) return notFoundYet(current, now, policy);
        if (current.status === 'UNKNOWN') return markNeverReceived(current, now.toISOString());
        return { ...current, sending: false, nextCheckAt: undefined };
      }
      const next = applyProviderAnswer(current, { record: found, source: 'STATUS_CHECK' }, now, policy, true);
      if (next && next.version !== current.version) return next;
      // The provider's word changed nothing: ask again later, a little later each time.
      return withNextCheck({ ...current, sending: false, checkAttempts: current.checkAttempts + 1 }, now, policy);
    },
    auditedAs('STATUS_CHECK'),
  );
  return written.stored;
}

/** What the rechecker asks to settle one due record (the service, which runs `recheckStep`). */
export interface RecheckTarget {
  recheck(merchant: Merchant, record: Disbursement): Promise<Disbursement | undefined>;
  /** Takes a due record for this replica until `until`; undefined when another replica took it first. */
  lease(record: Disbursement, until: Date): Promise<Disbursement | undefined>;
}

export interface RecheckerOptions {
  service: RecheckTarget;
  store: DisbursementStore;
  merchantById: (id: string) => Merchant | undefined;
  /** How long after a round the next one runs. */
  intervalMs: number;
  /** Records looked at per round. */
  batchSize?: number;
  /** Status checks in flight at once, so a backlog cannot flood the provider. */
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
 * Brings UNKNOWN payouts, stale claims and PENDING payouts whose callback is overdue to their
 * real state through check-status. Each record is leased before it is checked, so replicas
 * sharing a store do not ask about the same payout at once.
 */
export class StatusRechecker {
  private readonly now: () => Date;

  constructor(private readonly opts: RecheckerOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  /** One round, its failure reported; resolves with the delay until the next. */
  async tick(signal: AbortSignal): Promise<number> {
    await this.checkDue(signal).catch((error: unknown) => this.opts.onError?.(error));
    return this.opts.intervalMs;
  }

  /** One round; returns how many records it checked. Once `signal` aborts, it checks no more. */
  async checkDue(signal?: AbortSignal): Promise<number> {
    const { store, batchSize = 100, concurrency = 8 } = this.opts;
    const due = await store.due(this.now(), batchSize);
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
    await this.opts.service.recheck(merchant, current);
    return true;
  }
}
