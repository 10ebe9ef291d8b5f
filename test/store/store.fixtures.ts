import { randomUUID } from 'node:crypto';
import { Disbursement } from '../../src/disbursements/disbursement.model';

/** A stored payout; unless overridden, a claim of merchant-1 that its client does not see yet (no request). */
export function record(overrides: Partial<Disbursement> = {}): Disbursement {
  return {
    merchantId: 'merchant-1',
    referenceId: `ref-${randomUUID()}`,
    channel: 'MOBILE_MONEY',
    sending: false,
    status: 'PENDING',
    paymentType: 'OPERATOR_A_MONEY',
    amount: '150.75',
    currency: 'ZMW',
    accountNumber: '260971234567',
    updatedAt: '2026-01-01T00:00:00.000Z',
    version: 1,
    history: [{ status: 'PENDING', source: 'CREATE', at: '2026-01-01T00:00:00.000Z' }],
    deliveryIds: [],
    checkAttempts: 0,
    ...overrides,
  };
}

/** A payout its client sees the moment it is stored (its request is known, nothing in flight): logged on insert. */
export function shownRecord(overrides: Partial<Disbursement> = {}): Disbursement {
  const base = record(overrides);
  return {
    ...base,
    request: {
      channel: 'MOBILE_MONEY',
      referenceId: base.referenceId,
      amount: base.amount,
      currency: base.currency,
      accountNumber: base.accountNumber,
    },
    ...overrides,
  };
}

/** A change its client sees: the version moves. */
export const bump =
  (changes: Partial<Disbursement> = {}) =>
  (current: Disbursement): Disbursement => ({ ...current, ...changes, version: current.version + 1 });

/**
 * Starts watching: the iterator subscribes on its first `next()`, whose answer is the first event.
 * `take(n)` is the first n events, for a watcher read no other way.
 */
export function watching(iterable: AsyncIterable<Disbursement>) {
  const iterator = iterable[Symbol.asyncIterator]();
  const value = (result: IteratorResult<Disbursement>): Disbursement | undefined =>
    result.done ? undefined : result.value;
  const first = iterator.next().then(value);
  const next = () => iterator.next().then(value);
  const take = async (count: number) => {
    const heard = [await first];
    while (heard.length < count) heard.push(await next());
    return heard;
  };
  return { first, next, take, stop: () => iterator.return?.() };
}

/** Resolves once `check` holds, asking again every 20 ms: for what happens in the background. */
export async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
