import { CREATE_MOBILE, gql, mobileInput, Stack, startStack } from '../support/stack';

/** The sandbox keeps an account ending in 222 PENDING and never calls back; one ending in 111 fails at once. */
const STAYS_PENDING = '260971234222';
const FAILS_AT_ONCE = '260971234111';

describe('a memory store at MEMORY_MAX_RECORDS', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { MEMORY_MAX_RECORDS: '2' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  const create = (accountNumber: string) => {
    const input = mobileInput({ accountNumber });
    return gql<{ createMobileMoneyDisbursement: { status: string } | null }>(stack.graphqlUrl, CREATE_MOBILE, {
      input,
    }).then((answer) => ({
      input,
      answer,
    }));
  };

  it('makes room by forgetting a final payout, and refuses a create when every payout it holds is unfinished, sending nothing', async () => {
    const failed = await create(FAILS_AT_ONCE);
    expect(failed.answer.data?.createMobileMoneyDisbursement?.status).toBe('FAILED');
    const pending = await create(STAYS_PENDING);
    expect(pending.answer.data?.createMobileMoneyDisbursement?.status).toBe('PENDING');

    // Full (2): the FAILED payout is the oldest final one, and goes.
    const third = await create(STAYS_PENDING);
    expect(third.answer.data?.createMobileMoneyDisbursement?.status).toBe('PENDING');

    // Full of unfinished payouts: refused before anything reaches the provider.
    const sentBefore = stack.sandbox.stats().createRequests;
    const refused = await create(STAYS_PENDING);
    expect(refused.answer.errors?.[0].extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.answer.data?.createMobileMoneyDisbursement ?? null).toBeNull();
    expect(stack.sandbox.stats().createRequests).toBe(sentBefore);
    expect(stack.sandbox.stats().createRequestsByReferenceId[String(refused.input.referenceId)]).toBeUndefined();

    // The payouts it holds are still answered as before.
    const again = await gql<{ createMobileMoneyDisbursement: { status: string } }>(stack.graphqlUrl, CREATE_MOBILE, {
      input: pending.input,
    });
    expect(again.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    expect(stack.sandbox.stats().createRequests).toBe(sentBefore);
  });
});
