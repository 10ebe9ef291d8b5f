import { parseProviderBalance } from '../../src/upstream/provider.balance';
import { describeEachEngine } from '../support/modes';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';

const BALANCE = 'query { walletBalance { amount currency asOf } }';
type Balance = { walletBalance: { amount: string; currency: string | null; asOf: string } };
type Created = { createMobileMoneyDisbursement: { referenceId: string; status: string; message: string | null } };

async function balanceOf(stack: Stack): Promise<string> {
  const res = await gql<Balance>(stack.graphqlUrl, BALANCE);
  expect(res.errors).toBeUndefined();
  return res.data!.walletBalance.amount;
}

async function pay(stack: Stack, amount: string, accountNumber: string) {
  const res = await gql<Created>(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ amount, accountNumber }) });
  expect(res.errors).toBeUndefined();
  return res.data!.createMobileMoneyDisbursement;
}

async function statusOf(stack: Stack, referenceId: string): Promise<string> {
  const res = await gql<{ disbursement: { status: string } }>(
    stack.graphqlUrl,
    'query ($r: ID!) { disbursement(referenceId: $r) { status } }',
    { r: referenceId },
  );
  return res.data!.disbursement.status;
}

describeEachEngine('walletBalance against the sandbox wallet', (env) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      env: { ...env(), WALLET_BALANCE_CACHE_MS: '0' },
      // The balance is read between a payout's create and its settling: a settle delay that a loaded machine
      // cannot outrun, instead of a 50 ms window it sometimes missed.
      sandbox: { settleMs: 1500, openingBalance: 1000 },
    });
  });
  afterAll(() => stack.close());

  it('moves with payouts and refunds, and a payout beyond it ends FAILED with the provider message', async () => {
    const first = await gql<Balance>(stack.graphqlUrl, BALANCE);
    expect(first.data!.walletBalance).toEqual({ amount: '1000', currency: 'ZMW', asOf: expect.stringMatching(/Z$/) });

    const paid = await pay(stack, '100.25', '260971234567');
    expect(paid.status).toBe('PENDING');
    expect(await balanceOf(stack)).toBe('899.75');

    // Created, taken from the wallet, then failed by the operator: given back.
    const bounced = await pay(stack, '50.1', '260971234000');
    expect(await balanceOf(stack)).toBe('849.65');
    await eventually(async () => ((await statusOf(stack, bounced.referenceId)) === 'FAILED' ? true : undefined));
    expect(await balanceOf(stack)).toBe('899.75');

    // Failed at once by the provider: nothing taken.
    expect((await pay(stack, '10', '260971234111')).status).toBe('FAILED');
    expect(await balanceOf(stack)).toBe('899.75');

    const tooMuch = await pay(stack, '899.76', '260971234567');
    expect(tooMuch.status).toBe('FAILED');
    expect(tooMuch.message).toMatch(/insufficient balance/);
    expect(await balanceOf(stack)).toBe('899.75');
    await eventually(async () => ((await statusOf(stack, paid.referenceId)) === 'SUCCESSFUL' ? true : undefined));

    // Exactly what is left still goes through.
    expect((await pay(stack, '899.75', '260971234567')).status).toBe('PENDING');
    expect(await balanceOf(stack)).toBe('0');
  });
});

describe('walletBalance caching and errors', () => {
  it('serves one provider answer per merchant for a few seconds, concurrent callers sharing one request', async () => {
    const stack = await startStack();
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => gql<Balance>(stack.graphqlUrl, BALANCE)));
      await pay(stack, '1', '260971234567');
      const after = await gql<Balance>(stack.graphqlUrl, BALANCE);
      expect(new Set([...answers, after].map((a) => JSON.stringify(a.data)))).toEqual(
        new Set([JSON.stringify(after.data)]),
      );
      expect(stack.sandbox.stats().balanceRequests).toBe(1);
    } finally {
      await stack.close();
    }
  });

  it('is served by the sandbox in the shape of the provider mock', async () => {
    const stack = await startStack({ sandbox: { openingBalance: 1234.5 } });
    try {
      const res = await fetch(`${stack.sandbox.url}/api/v1/merchants/balance`, {
        headers: { 'x-api-key': 'sandbox-key' },
      });
      expect(await res.json()).toEqual({
        success: true,
        message: 'Wallet balance retrieved successfully.',
        data: { balance: 1234.5, currency: 'ZMW' },
      });
      const refused = await fetch(`${stack.sandbox.url}/api/v1/merchants/balance`, {
        headers: { 'x-api-key': 'nope' },
      });
      expect(refused.status).toBe(401);
    } finally {
      await stack.close();
    }
  });

  it('maps a refused merchant key to UPSTREAM_AUTH_FAILED without the key', async () => {
    const stack = await startStack({ merchantApiKey: 'sandbox-inactive-key' });
    try {
      const res = await gql<Balance>(stack.graphqlUrl, BALANCE);
      expect(res.errors?.[0]?.extensions?.code).toBe('UPSTREAM_AUTH_FAILED');
      expect(res.text).not.toContain('sandbox-inactive-key');
    } finally {
      await stack.close();
    }
  });

  it('maps the provider 429 to RATE_LIMITED with retryAfter while no figure is known', async () => {
    const stack = await startStack({ env: { WALLET_BALANCE_CACHE_MS: '0' }, sandbox: { rateLimitPerMin: 2 } });
    try {
      // A create spends the provider's two calls a minute (the check-status every send asks first, then the
      // create): the first balance read meets its 429.
      await pay(stack, '1', '260971234567');
      const res = await gql<Balance>(stack.graphqlUrl, BALANCE);
      expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    } finally {
      await stack.close();
    }
  });

  it('answers the last known figure, with the asOf of when it was given, during a provider 429 and its pause', async () => {
    const stack = await startStack({ env: { WALLET_BALANCE_CACHE_MS: '0' }, sandbox: { rateLimitPerMin: 1 } });
    try {
      const known = await gql<Balance>(stack.graphqlUrl, BALANCE);
      expect(known.errors).toBeUndefined();
      // The first read after it meets the provider's 429, the next one the pause it set.
      for (let i = 0; i < 2; i += 1) {
        const res = await gql<Balance>(stack.graphqlUrl, BALANCE);
        expect(res.errors).toBeUndefined();
        expect(res.data).toEqual(known.data);
      }
    } finally {
      await stack.close();
    }
  });
});

describe('parseProviderBalance', () => {
  it.each([
    [{ success: true, message: 'ok', data: { balance: 1234.5 } }, { amount: '1234.5' }],
    [
      { success: true, data: { balance: '1234.50', currency: 'ZMW' } },
      { amount: '1234.5', currency: 'ZMW' },
    ],
    [{ balance: '0.10' }, { amount: '0.1' }],
    [{ data: { balance: -12.3 } }, { amount: '-12.3' }],
    [{ data: { balance: 0.1 + 0.2 } }, { amount: '0.30000000000000004' }],
    [{ data: { availableBalance: 7, currency: 'zmw' } }, { amount: '7' }],
  ])('reads %j', (body, expected) => {
    expect(parseProviderBalance(body)).toEqual(expected);
  });

  it.each([
    [{ success: false, data: { balance: 1 } }],
    [{ data: { balance: 'lots' } }],
    [{ data: {} }],
    [null],
    [[1]],
    [{ data: { balance: 1e21 } }],
  ])('refuses %j', (body) => {
    expect(parseProviderBalance(body)).toBeUndefined();
  });
});
