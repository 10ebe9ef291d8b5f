import { ErrorCode, GatewayError } from '../../src/disbursements/disbursement.errors';
import { ProviderBalance } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError } from '../../src/disbursements/disbursement.ports';
import { WalletBalance, WalletBalances } from '../../src/disbursements/wallet.balance';

const merchant: Merchant = { id: 'm-wallet', apiKey: 'key-wallet' };

/** A provider whose balance answers are scripted, one per call, and a clock the test moves. */
function wallet() {
  const answers: (ProviderBalance | ProviderError)[] = [];
  let now = Date.parse('2026-11-22T10:00:00Z');
  const balances = new WalletBalances({
    provider: {
      balance: () => {
        const next = answers.shift();
        if (!next) throw new Error('the test scripted no answer for this call');
        return next instanceof ProviderError ? Promise.reject(next) : Promise.resolve(next);
      },
    },
    ttlMs: 5000,
    now: () => now,
  });
  return {
    answers,
    later: (ms: number) => (now += ms),
    /** The answer, or the GatewayError the client would see. */
    get: () =>
      balances.get(merchant).catch((error: unknown) => {
        if (error instanceof GatewayError) return error;
        throw error;
      }),
  };
}

const heldBack = new ProviderError('rate-limited', "Not sent: the merchant's provider budget is spent for now", {
  retryAfter: 12,
});
const provider429 = new ProviderError('rate-limited', 'Too Many Requests', { status: 429, retryAfter: 30 });

describe('walletBalance when the provider may not be asked', () => {
  it.each([
    ['the provider budget holds the call back', heldBack, 12],
    ['the provider answers 429 (or its pause holds)', provider429, 30],
  ])('%s: the last known figure, with its own asOf', async (_why, failure, retryAfter) => {
    const w = wallet();
    w.answers.push({ amount: '1000', currency: 'ZMW' });
    const first = (await w.get()) as WalletBalance;
    w.later(60_000);
    w.answers.push(failure);
    expect(await w.get()).toEqual({ amount: '1000', currency: 'ZMW', asOf: first.asOf });

    // The old figure is not served as fresh: the next call asks the provider again.
    w.later(1000);
    w.answers.push({ amount: '900', currency: 'ZMW' });
    expect(await w.get()).toEqual({ amount: '900', currency: 'ZMW', asOf: new Date(first.asOf.getTime() + 61_000) });

    // With no figure known yet, the refusal is the answer.
    const fresh = wallet();
    fresh.answers.push(failure);
    expect(await fresh.get()).toMatchObject({ code: ErrorCode.RATE_LIMITED, details: { retryAfter } });
  });

  it.each([
    ['the merchant key is refused', new ProviderError('auth', 'Unauthorized', { status: 401 }), 'UPSTREAM_AUTH_FAILED'],
    ['the provider is unavailable', new ProviderError('unavailable', 'timeout'), 'UPSTREAM_UNAVAILABLE'],
  ])('%s: an error even with a figure known, and the figure is forgotten', async (_why, failure, code) => {
    const w = wallet();
    w.answers.push({ amount: '1000', currency: 'ZMW' });
    await w.get();
    w.later(60_000);
    w.answers.push(failure);
    expect(await w.get()).toMatchObject({ code });
    w.answers.push(heldBack);
    expect(await w.get()).toMatchObject({ code: ErrorCode.RATE_LIMITED });
  });
});
