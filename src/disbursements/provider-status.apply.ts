import { auditedAs, DomainContext, statusChange } from './disbursement.context';
import { fromProviderError } from './disbursement.errors';
import { Disbursement, DisbursementStatus, isFinal, isUnsent, ProviderRecord } from './disbursement.model';
import { Merchant, ProviderError } from './disbursement.ports';
import { boundedAnswer, contentDiffers, orphanRecord } from './disbursement.record';
import { withDueNext } from './disbursement.checks';

/** How a callback was received. */
export interface CallbackDelivery {
  /** Its webhook-id, when it came signed. */
  deliveryId?: string;
  /** Signed with the secret of the merchant whose path it was posted to, and the signature checked. */
  verified: boolean;
}

/**
 * What became of a callback:
 * - `applied` / `unchanged`: taken as it came (a verified callback, or an unverified one with nothing final in it);
 * - `confirmed`: its final status was unverified and the provider confirmed it;
 * - `overruled`: the provider's answer contradicted it, and the provider's answer was applied instead;
 * - `unknown_reference`: no such payout here, and the provider has none either: nothing is kept;
 * - `retry_later`: it could not be confirmed now (provider unreachable, or the merchant's orphan quota is
 *   spent); nothing was stored, and the sender should deliver it again later.
 */
export type CallbackOutcome =
  | { result: 'applied' | 'unchanged' | 'confirmed' | 'overruled'; record: Disbursement; changed: boolean }
  | { result: 'unknown_reference' | 'retry_later' };

/** Reported when a callback's final status is not what the provider itself says. */
export interface CallbackMismatch {
  merchantId: string;
  referenceId: string;
  claimed: DisbursementStatus;
  /** The provider's status, or undefined when it has no such payout. */
  provider?: DisbursementStatus;
}

export interface StatusUpdateOptions {
  /** Payouts first learnt from a callback, per merchant per hour in one process; beyond it such callbacks wait. */
  orphansPerHour?: number;
  onMismatch?: (mismatch: CallbackMismatch) => void;
}

/** Default bound on payouts first learnt from a callback: 1,000 per merchant per hour in one process. */
export const ORPHANS_PER_HOUR = 1000;
const HOUR_MS = 3600_000;

/**
 * Status updates: provider callbacks and status checks on request. A final status reaches the store
 * only from a verified callback or from the provider's own answer to check-status.
 */
export class StatusUpdates {
  private readonly orphanWindows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly ctx: DomainContext,
    private readonly opts: StatusUpdateOptions = {},
  ) {}

  /**
   * Asks the provider for the current state and applies it through the status rules. A final
   * record is answered as stored (the provider's final word does not change), and so is any record
   * while the provider budget allows no check (checked moments ago, or the merchant's reads spent).
   */
  async refresh(merchant: Merchant, referenceId: string): Promise<Disbursement | undefined> {
    const current = await this.ctx.store.get(merchant.id, referenceId);
    // A final record has nothing more to learn, and nothing was sent for a payout awaiting approval or its time.
    if (!current || isFinal(current.status) || isUnsent(current)) return current;
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.ctx.provider.checkStatus(merchant, referenceId, 'refresh');
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'rate-limited') return current;
      throw fromProviderError(error, referenceId);
    }
    if (!answer) return current;
    const { stored } = await this.ctx.writer.change(
      merchant.id,
      referenceId,
      statusChange(this.ctx, answer, 'STATUS_CHECK'),
      auditedAs('STATUS_CHECK', 'refreshed on request'),
    );
    return stored ?? current;
  }

  /**
   * A provider callback. A callback is taken as it came when it was verified and its content (amount,
   * currency, account) matches the record; otherwise a final status in it is first confirmed with
   * check-status, and the provider's answer wins. A referenceId the gateway has no record of costs
   * one status check and is kept only when the provider has it.
   */
  async applyCallback(
    merchant: Merchant,
    record: ProviderRecord,
    delivery: CallbackDelivery,
  ): Promise<CallbackOutcome> {
    const apply = statusChange(this.ctx, record, 'CALLBACK', delivery.verified ? delivery.deliveryId : undefined);
    // Decided on the record the write reads, so the callback costs one read; set on every run of the change.
    let confirmFirst = false;
    const { stored, changed } = await this.ctx.writer.change(
      merchant.id,
      record.referenceId,
      (current) => {
        const trusted = delivery.verified && contentDiffers(current, record).length === 0;
        confirmFirst = !trusted && isFinal(record.status);
        return confirmFirst ? undefined : apply(current);
      },
      auditedAs('CALLBACK', delivery.verified ? 'signed callback' : 'unsigned callback'),
    );
    if (!stored) return this.unknownReference(merchant, record, delivery.verified);
    if (confirmFirst) return this.confirm(merchant, record);
    return { result: changed ? 'applied' : 'unchanged', record: stored, changed };
  }

  /** An unverified final status: the provider's own record decides, and only it is stored. */
  private async confirm(merchant: Merchant, claimed: ProviderRecord): Promise<CallbackOutcome> {
    const { referenceId } = claimed;
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.ctx.provider.checkStatus(merchant, referenceId, 'callback');
    } catch {
      return { result: 'retry_later' };
    }
    const agrees = answer?.status === claimed.status;
    if (!agrees)
      this.opts.onMismatch?.({
        merchantId: merchant.id,
        referenceId,
        claimed: claimed.status,
        provider: answer?.status,
      });
    if (!answer) {
      const current = await this.ctx.store.get(merchant.id, referenceId);
      return current ? { result: 'overruled', record: current, changed: false } : { result: 'unknown_reference' };
    }
    const { stored, changed } = await this.ctx.writer.change(
      merchant.id,
      referenceId,
      statusChange(this.ctx, answer, agrees ? 'CALLBACK' : 'STATUS_CHECK'),
      agrees
        ? auditedAs('CALLBACK', 'callback confirmed by check-status')
        : auditedAs('STATUS_CHECK', `a callback said ${claimed.status}; the provider's own answer applied`),
    );
    if (!stored) return { result: 'unknown_reference' };
    return { result: agrees ? 'confirmed' : 'overruled', record: stored, changed };
  }

  /**
   * A callback for a payout this gateway has no record of: kept, from the provider's own answer, only
   * if the provider has it. An unverified one could come from anyone, so its check is an
   * `unknown-reference` one, which the provider budget allows only a few of a minute per merchant.
   */
  private async unknownReference(
    merchant: Merchant,
    claimed: ProviderRecord,
    verified: boolean,
  ): Promise<CallbackOutcome> {
    if (!this.takeOrphanQuota(merchant.id)) return { result: 'retry_later' };
    let answer: ProviderRecord | undefined;
    try {
      answer = await this.ctx.provider.checkStatus(
        merchant,
        claimed.referenceId,
        verified ? 'callback' : 'unknown-reference',
      );
    } catch {
      return { result: 'retry_later' };
    }
    if (!answer) return { result: 'unknown_reference' };
    if (answer.status !== claimed.status)
      this.opts.onMismatch?.({
        merchantId: merchant.id,
        referenceId: claimed.referenceId,
        claimed: claimed.status,
        provider: answer.status,
      });
    const found = boundedAnswer(answer);
    const now = this.ctx.now();
    await this.ctx.writer.insert(
      withDueNext(orphanRecord(merchant.id, found, now.toISOString()), now, this.ctx.policy),
    );
    const { stored, changed } = await this.ctx.writer.change(
      merchant.id,
      found.referenceId,
      statusChange(this.ctx, found, 'STATUS_CHECK'),
      auditedAs('STATUS_CHECK', 'learnt from a callback, confirmed by the provider'),
    );
    if (!stored) return { result: 'unknown_reference' };
    return { result: changed ? 'applied' : 'unchanged', record: stored, changed };
  }

  /** A fixed window per merchant: memory is one entry per merchant, and phantom callbacks cost at most this many checks. */
  private takeOrphanQuota(merchantId: string): boolean {
    const limit = this.opts.orphansPerHour ?? ORPHANS_PER_HOUR;
    const now = this.ctx.now().getTime();
    let window = this.orphanWindows.get(merchantId);
    if (!window || now - window.start >= HOUR_MS) {
      window = { start: now, count: 0 };
      this.orphanWindows.set(merchantId, window);
    }
    if (window.count >= limit) return false;
    window.count += 1;
    return true;
  }
}
