import { CREATE_MOBILE, DISBURSEMENT_FIELDS, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';
import { PayoutRow } from '../support/fixtures';

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;

const read = async (stack: Stack, referenceId: string) =>
  (
    await gql<{
      disbursement: PayoutRow;
    }>(stack.graphqlUrl, QUERY, { referenceId })
  ).data!.disbursement;

describe('idempotent creates', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { latencyMs: 100 } });
  });
  afterAll(() => stack.close());

  it('makes one provider call for 20 concurrent identical mutations, and all get the same answer', async () => {
    const input = mobileInput();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input }),
      ),
    );
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
    const bodies = new Set(answers.map((a) => JSON.stringify(a.data)));
    expect(bodies.size).toBe(1);
    expect(answers[0].data?.createMobileMoneyDisbursement.status).toBe('PENDING');
  });

  it('answers REFERENCE_CONFLICT to a changed amount sent while the first is still in flight', async () => {
    const input = mobileInput();
    const [first, second] = await Promise.all([
      gql(stack.graphqlUrl, CREATE_MOBILE, { input }),
      gql(stack.graphqlUrl, CREATE_MOBILE, { input: { ...input, amount: '999' } }),
    ]);
    expect(first.errors).toBeUndefined();
    expect(second.errors?.[0].extensions).toMatchObject({ code: 'REFERENCE_CONFLICT', fields: ['input.amount'] });
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });
});

describe('unknown outcomes', () => {
  let stack: Stack;
  beforeAll(async () => {
    // The provider is slower than the gateway's patience; callbacks never reach the gateway,
    // so only status checks (the client's retry, or the rechecker) can settle a payout.
    stack = await startStack({
      env: {
        UPSTREAM_TIMEOUT_MS: '300',
        PUBLIC_URL: 'http://127.0.0.1:9',
        RECONCILE_INTERVAL_MS: '50',
        RECONCILE_UNKNOWN_AFTER_MS: '100',
        RECONCILE_PENDING_AFTER_MS: '200',
      },
      sandbox: { slowCreateMs: 1500, callbackMaxAttempts: 1 },
    });
  });
  afterAll(() => stack.close());

  it('answers OUTCOME_UNKNOWN to a create that times out, keeps it UNKNOWN (never FAILED), and a retry settles it without a second create', async () => {
    await stack.gateway.dueLoop.stop(); // this case shows the client's own retry
    try {
      const input = mobileInput({ accountNumber: '260971234408' });
      const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
      expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
      const kept = await read(stack, input.referenceId as string);
      expect(kept.status).toBe('UNKNOWN');
      expect(kept.history.map((h) => h.status)).not.toContain('FAILED');
      const retry = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input });
      expect(retry.errors).toBeUndefined();
      expect(['PENDING', 'SUCCESSFUL']).toContain(retry.data?.createMobileMoneyDisbursement.status);
      expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
    } finally {
      stack.gateway.dueLoop.start();
    }
  });

  it('lets the rechecker settle an UNKNOWN payout by itself, publishing each change', async () => {
    const input = mobileInput({ accountNumber: '260971234408' });
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    const settled = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.status === 'SUCCESSFUL' ? r : undefined;
    }, 200);
    expect(settled.history.map((h) => h.source)).toContain('STATUS_CHECK');
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });

  it('checks a PENDING payout whose callback is overdue', async () => {
    const input = mobileInput();
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    const settled = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.status === 'SUCCESSFUL' ? r : undefined;
    }, 200);
    expect(settled.history.map((h) => [h.status, h.source])).toEqual([
      ['PENDING', 'CREATE'],
      ['SUCCESSFUL', 'STATUS_CHECK'],
    ]);
  });

  it.each([
    ['a reset after sending', { resetRate: 1 }],
    ['a malformed 2xx', { malformedRate: 1 }],
    ['a slow body', { slowBodyRate: 1 }],
  ])('answers OUTCOME_UNKNOWN to %s and the payout is settled, sent once', async (_name, faults) => {
    stack.sandbox.setFaults(faults);
    const input = mobileInput();
    let res;
    try {
      res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    } finally {
      stack.sandbox.setFaults({});
    }
    expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    await eventually(
      async () => ((await read(stack, input.referenceId as string)).status === 'SUCCESSFUL' ? true : undefined),
      200,
    );
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });

  it('answers OUTCOME_UNKNOWN to a 5xx for a payout the provider does not show, and keeps it UNKNOWN', async () => {
    stack.sandbox.setFaults({ errorRate: 1 });
    const input = mobileInput();
    try {
      const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
      expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    } finally {
      stack.sandbox.setFaults({});
    }
    expect((await read(stack, input.referenceId as string)).status).toBe('UNKNOWN');
  });
});

describe('circuit breaker', () => {
  it('fails fast with UPSTREAM_UNAVAILABLE while the provider fails, and recovers by itself', async () => {
    const stack = await startStack({ env: { UPSTREAM_BREAKER_RESET_MS: '300' } });
    try {
      stack.sandbox.setFaults({ errorRate: 1 });
      for (let i = 0; i < 12; i += 1) await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
      const before = stack.sandbox.stats().createRequests;
      const fast = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
      expect(fast.errors?.[0].extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(stack.sandbox.stats().createRequests).toBe(before); // refused before sending
      stack.sandbox.setFaults({});
      const recovered = await eventually(
        async () => {
          const r = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, {
            input: mobileInput(),
          });
          return r.data?.createMobileMoneyDisbursement ?? undefined;
        },
        50,
        100,
      );
      expect(recovered.status).toBe('PENDING');
    } finally {
      await stack.close();
    }
  });
});
