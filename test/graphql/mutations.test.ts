import { bankInput, CREATE_BANK, CREATE_MOBILE, gql, mobileInput, Stack, startStack } from '../support/stack';

type Created = Record<string, unknown> & { status: string; history: Record<string, unknown>[] };

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('createMobileMoneyDisbursement', () => {
  it('returns the provider record, every field typed as the schema says', async () => {
    const input = mobileInput({ amount: 150.75 });
    const res = await gql<{ createMobileMoneyDisbursement: Created }>(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(res.errors).toBeUndefined();
    const d = res.data!.createMobileMoneyDisbursement;
    expect(d).toMatchObject({
      referenceId: input.referenceId,
      channel: 'MOBILE_MONEY',
      paymentType: 'OPERATOR_A_MONEY',
      providerPaymentType: 'OperatorAMoney',
      status: 'PENDING',
      providerStatus: 'Pending',
      message: null,
      amount: '150.75',
      currency: 'ZMW',
      accountNumber: '260971234567',
      narration: 'Test payout',
      externalId: null,
      ipAddress: '127.0.0.1',
    });
    expect(d.identifier).toMatch(/^[A-Z]+(-\d+)+$/);
    expect(d.createdAt).toMatch(ISO);
    expect(d.updatedAt).toMatch(ISO);
    expect(d.history).toEqual([
      expect.objectContaining({ status: 'PENDING', providerStatus: 'Pending', source: 'CREATE' }),
    ]);
  });

  it.each([
    ['260961234567', 'OPERATOR_B_MONEY'],
    ['260751234567', 'OPERATOR_C_KWACHA'],
  ])('maps the operator of %s to %s', async (accountNumber, paymentType) => {
    const res = await gql<{ createMobileMoneyDisbursement: Created }>(stack.graphqlUrl, CREATE_MOBILE, {
      input: mobileInput({ accountNumber }),
    });
    expect(res.data?.createMobileMoneyDisbursement.paymentType).toBe(paymentType);
  });

  it('returns FAILED with the provider message for an account ending 111, as data not an error', async () => {
    const res = await gql<{ createMobileMoneyDisbursement: Created }>(stack.graphqlUrl, CREATE_MOBILE, {
      input: mobileInput({ accountNumber: '260971234111' }),
    });
    expect(res.errors).toBeUndefined();
    const d = res.data!.createMobileMoneyDisbursement;
    expect(d.status).toBe('FAILED');
    expect(typeof d.message).toBe('string');
    expect(d.createdAt).toBeNull();
    expect(d.externalId).toBeNull();
  });

  it('answers OUTCOME_UNKNOWN when the provider answers 500 and does not show the payout, and a retry inside RESEND_AFTER_SECONDS sends nothing', async () => {
    const input = mobileInput({ accountNumber: '260971234500' });
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    expect(res.data).toBeNull();
    const again = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(again.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });

  it("passes on a provider 400 as BAD_USER_INPUT with the provider's message", async () => {
    // Digits the gateway accepts, but no operator the provider knows.
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ accountNumber: '260911234567' }) });
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].message).toMatch(/accountNumber/);
    expect(res.errors?.[0].extensions?.fields).toEqual(['input.accountNumber']);
  });

  it('returns the stored record to an identical retry without calling the provider again', async () => {
    const input = mobileInput();
    const first = await gql<{ createMobileMoneyDisbursement: Created }>(stack.graphqlUrl, CREATE_MOBILE, { input });
    const second = await gql<{ createMobileMoneyDisbursement: Created }>(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(second.data?.createMobileMoneyDisbursement.identifier).toBe(
      first.data?.createMobileMoneyDisbursement.identifier,
    );
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });

  it('refuses the same referenceId with different content as REFERENCE_CONFLICT naming the field', async () => {
    const input = mobileInput();
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: { ...input, amount: '151.00' } });
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'REFERENCE_CONFLICT', fields: ['input.amount'] });
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });
});

describe('createBankDisbursement', () => {
  it('returns the provider record with paymentType BANK', async () => {
    const input = bankInput();
    const res = await gql<{ createBankDisbursement: Created }>(stack.graphqlUrl, CREATE_BANK, { input });
    expect(res.errors).toBeUndefined();
    const d = res.data!.createBankDisbursement;
    expect(d).toMatchObject({
      referenceId: input.referenceId,
      channel: 'BANK',
      paymentType: 'BANK',
      providerPaymentType: 'Bank',
      status: 'PENDING',
      amount: '2500.5',
      currency: 'ZMW',
      accountNumber: '0012345678',
      narration: 'Supplier invoice 42',
      externalId: null,
      ipAddress: '127.0.0.1',
    });
    expect(d.identifier).toMatch(/^[A-Z]+(-\d+)+$/);
    expect(d.createdAt).toMatch(ISO);
  });

  it('returns FAILED for a bank account ending 111', async () => {
    const res = await gql<{ createBankDisbursement: Created }>(stack.graphqlUrl, CREATE_BANK, {
      input: bankInput({ accountNumber: '0012345111' }),
    });
    expect(res.data?.createBankDisbursement.status).toBe('FAILED');
    expect(res.data?.createBankDisbursement.message).toEqual(expect.any(String));
  });
});

describe('provider refusals', () => {
  it.each(['sandbox-inactive-key', 'not-a-key-7f3a9c'])(
    'maps a refused merchant key (%s) to UPSTREAM_AUTH_FAILED without showing it',
    async (key) => {
      const other = await startStack({ merchantApiKey: key });
      try {
        const res = await gql(other.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
        expect(res.errors?.[0].extensions?.code).toBe('UPSTREAM_AUTH_FAILED');
        expect(res.text).not.toContain(key);
        // Nothing was stored, so the same referenceId can be sent once the key is fixed.
        expect(res.data).toBeNull();
      } finally {
        await other.close();
      }
    },
  );

  it('maps a provider 429 to RATE_LIMITED with retryAfter', async () => {
    const limited = await startStack({ sandbox: { rateLimitPerMin: 2 } });
    try {
      const answers = [];
      for (let i = 0; i < 3; i += 1)
        answers.push(await gql(limited.graphqlUrl, CREATE_MOBILE, { input: mobileInput() }));
      const refused = answers[2];
      expect(refused.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
      expect(refused.errors?.[0].extensions?.retryAfter).toEqual(expect.any(Number));
      expect(refused.errors?.[0].extensions?.retryAfter as number).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });
});
