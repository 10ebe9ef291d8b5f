import { badInput, ErrorCode, GatewayError, outcomeUnknown, providerPaused } from './disbursement.errors';
import { Disbursement, DisbursementRequest } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { Actor, limitedCurrencies } from './payout.controls';
import { BeneficiaryPayment } from './beneficiary.pay';

export const MAX_BATCH_ITEMS = 100;

/** One item of a batch as the edge handed it over: a valid request, a payment to a beneficiary, or why it is not one. */
export type BatchItem =
  | { referenceId: string; request: DisbursementRequest }
  | { referenceId: string; payment: BeneficiaryPayment }
  | { referenceId: string; invalid: GatewayError };

/** The outcome of one item, in the batch's order: its record, or the error a single create would have raised. */
export type BatchResult = { referenceId: string; record: Disbursement } | { referenceId: string; error: GatewayError };

export interface DisbursementBatchesOptions {
  /** The single create, with all its at-most-once guarantees; a batch is nothing more than many of them. */
  create(merchant: Merchant, request: DisbursementRequest, requestId?: string, actor?: Actor): Promise<Disbursement>;
  /** The single payment to a beneficiary (beneficiary.pay.ts), which is that same create. */
  pay(merchant: Merchant, payment: BeneficiaryPayment, requestId?: string, actor?: Actor): Promise<Disbursement>;
  getMany(merchant: Merchant, referenceIds: readonly string[]): Promise<(Disbursement | undefined)[]>;
  /** Provider calls running at once for one batch. Default 8. */
  concurrency?: number;
  now?: () => number;
}

/**
 * Many creates in one call. Items run in input order with bounded concurrency; once the provider
 * answers 429 nothing more is sent to it for that merchant until its Retry-After has passed (from
 * this process), and the items left answer RATE_LIMITED, so a batch never hammers a provider that
 * asked for a pause. Items already recorded are replayed even then: that calls no provider.
 * A retry of the same batch therefore returns the same records and sends only what was never sent.
 */
export class DisbursementBatches {
  /** merchant id → time (ms) before which the provider asked not to be called. */
  private readonly pausedUntil = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly opts: DisbursementBatchesOptions) {
    this.now = opts.now ?? Date.now;
  }

  async createAll(
    merchant: Merchant,
    items: readonly BatchItem[],
    requestId?: string,
    actor?: Actor,
  ): Promise<BatchResult[]> {
    refuseWhole(items);
    const valid = items.flatMap((item) => ('invalid' in item ? [] : [item.referenceId]));
    const known = new Map<string, Disbursement>();
    (await this.opts.getMany(merchant, valid)).forEach((record, i) => record && known.set(valid[i], record));

    const results: BatchResult[] = new Array<BatchResult>(items.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < items.length) {
        const index = next;
        next += 1;
        results[index] = await this.one(merchant, items[index], known.get(items[index].referenceId), requestId, actor);
      }
    };
    // Under payout controls each item is checked against the limits in input order: one at a time.
    const concurrency = limitedCurrencies(merchant.controls).length > 0 ? 1 : (this.opts.concurrency ?? 8);
    const workers = Math.min(concurrency, items.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return results;
  }

  private async one(
    merchant: Merchant,
    item: BatchItem,
    known: Disbursement | undefined,
    requestId?: string,
    actor?: Actor,
  ): Promise<BatchResult> {
    const { referenceId } = item;
    if ('invalid' in item) return { referenceId, error: item.invalid };
    // A settled record is replayed without the provider; anything else may need a provider call.
    const retryAfter = known && known.status !== 'UNKNOWN' ? undefined : this.paused(merchant);
    if (retryAfter !== undefined) {
      return {
        referenceId,
        error: providerPaused(retryAfter, referenceId),
      };
    }
    try {
      const record =
        'request' in item
          ? await this.opts.create(merchant, item.request, requestId, actor)
          : await this.opts.pay(merchant, item.payment, requestId, actor);
      return { referenceId, record };
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        // Not one of create's own answers: it may have been sent, so the only safe advice is the same referenceId.
        return {
          referenceId,
          error: outcomeUnknown(referenceId),
        };
      }
      // Only the provider's 429 reaches here as RATE_LIMITED: the client's own quota is checked before any resolver.
      if (error.code === ErrorCode.RATE_LIMITED) this.pause(merchant, error.details.retryAfter ?? 1);
      return { referenceId, error };
    }
  }

  /** Seconds left of the provider's pause for this merchant, or undefined when there is none. */
  private paused(merchant: Merchant): number | undefined {
    const until = this.pausedUntil.get(merchant.id);
    if (until === undefined) return undefined;
    const left = until - this.now();
    if (left <= 0) {
      this.pausedUntil.delete(merchant.id);
      return undefined;
    }
    return Math.max(1, Math.ceil(left / 1000));
  }

  private pause(merchant: Merchant, seconds: number): void {
    const until = this.now() + seconds * 1000;
    this.pausedUntil.set(merchant.id, Math.max(until, this.pausedUntil.get(merchant.id) ?? 0));
  }
}

/** More than the maximum, or one referenceId twice (which of the two would the client mean?): nothing is sent. */
function refuseWhole(items: readonly BatchItem[]): void {
  if (items.length > MAX_BATCH_ITEMS) {
    throw badInput(`A batch holds at most ${MAX_BATCH_ITEMS} payouts; this one has ${items.length}.`, ['inputs']);
  }
  const seen = new Map<string, number[]>();
  items.forEach((item, index) => seen.set(item.referenceId, [...(seen.get(item.referenceId) ?? []), index]));
  const repeated = [...seen.values()].filter((indexes) => indexes.length > 1);
  if (repeated.length > 0) {
    const fields = repeated.flat().map((index) => `inputs.${index}.referenceId`);
    throw badInput(
      `Each payout of a batch needs its own referenceId; repeated at items ${repeated.map((r) => r.join(' and ')).join(', ')}. Nothing was sent.`,
      fields,
    );
  }
}
