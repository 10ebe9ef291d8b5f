import { describeEachEngine } from '../support/modes';
import { bankInput, DISBURSEMENT_FIELDS, gql, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

type Result = {
  referenceId: string;
  disbursement: { referenceId: string; status: string; message: string | null; identifier: string | null } | null;
  error: { code: string; message: string; fields: string[] | null; retryAfter: number | null } | null;
};
type Batch = { createMobileMoneyDisbursements: Result[] };

const BATCH = `mutation Batch($inputs: [MobileMoneyDisbursementInput!]!) {
  createMobileMoneyDisbursements(inputs: $inputs) {
    referenceId
    disbursement { ${DISBURSEMENT_FIELDS} }
    error { code message fields retryAfter }
  }
}`;

const BANK_BATCH = `mutation BankBatch($inputs: [BankDisbursementInput!]!) {
  createBankDisbursements(inputs: $inputs) { referenceId disbursement { referenceId status } error { code fields } }
}`;

type Kind = 'invalid' | 'failing' | 'server-error' | 'normal';

/** 100 items: 5 invalid, 5 that the provider fails at once (…111), 3 that get a 500 (early), the rest ordinary. */
function mixedBatch(): { inputs: Record<string, unknown>[]; kinds: Kind[] } {
  const kinds: Kind[] = Array.from({ length: 100 }, (_, i) => {
    if (i % 20 === 3) return 'invalid';
    if (i % 20 === 7) return 'failing';
    if (i === 1 || i === 11 || i === 21) return 'server-error';
    return 'normal';
  });
  const account = {
    invalid: '260971234567',
    failing: '260971234111',
    'server-error': '260971234500',
    normal: '260971234567',
  };
  const inputs = kinds.map((kind, i) =>
    mobileInput({
      referenceId: uniqueRef(`batch-${i}`),
      amount: kind === 'invalid' ? '1.234' : '10',
      accountNumber: account[kind],
    }),
  );
  return { inputs, kinds };
}

const sends = (stack: Stack, referenceId: string) =>
  stack.sandbox.stats().createRequestsByReferenceId[referenceId] ?? 0;

describeEachEngine('batches of payouts', (env) => {
  describe('with a provider that rate limits after 60 requests', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: env(), sandbox: { settleMs: 1000, rateLimitPerMin: 60 } });
    });
    afterAll(() => stack.close());

    it('answers each of 100 mixed items in order, sends each valid one at most once, stops at the 429, and its retry sends nothing', async () => {
      const { inputs, kinds } = mixedBatch();
      const res = await gql<Batch>(stack.graphqlUrl, BATCH, { inputs });
      expect(res.errors).toBeUndefined();
      const results = res.data!.createMobileMoneyDisbursements;
      expect(results.map((r) => r.referenceId)).toEqual(inputs.map((i) => i.referenceId));

      const onProvider = new Set(stack.sandbox.records().map((r) => r.referenceId));
      let rateLimited = 0;
      let refusedBy429 = 0;
      results.forEach((result, i) => {
        const ref = String(inputs[i].referenceId);
        switch (kinds[i]) {
          case 'invalid':
            expect(result.error).toMatchObject({ code: 'BAD_USER_INPUT', fields: [`inputs.${i}.amount`] });
            expect(sends(stack, ref)).toBe(0);
            return;
          case 'server-error':
            // A 500 and no such payout at once: the provider may still be taking it in.
            expect(result.error?.code).toBe('OUTCOME_UNKNOWN');
            expect(sends(stack, ref)).toBe(1);
            return;
          case 'failing':
          case 'normal':
            expect(sends(stack, ref)).toBeLessThanOrEqual(1);
            if (result.disbursement) {
              expect(result.error).toBeNull();
              expect(result.disbursement.status).toBe(kinds[i] === 'failing' ? 'FAILED' : 'PENDING');
              if (kinds[i] === 'failing') expect(result.disbursement.message).toMatch(/failed/i);
              expect(onProvider.has(ref)).toBe(true);
              return;
            }
            expect(result.error).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
            expect(result.error!.retryAfter).toBeGreaterThan(0);
            expect(onProvider.has(ref)).toBe(false);
            rateLimited += 1;
            refusedBy429 += sends(stack, ref);
        }
      });
      expect(rateLimited).toBeGreaterThan(0);
      // Only creates already in flight when the first 429 came back were sent and refused: nothing hammered.
      expect(refusedBy429).toBeGreaterThanOrEqual(1);
      expect(refusedBy429).toBeLessThanOrEqual(8);
      // 60 requests were admitted: for each payout sent, the status check asked before it and its create, and
      // one more check after each of the 3 500s; creates in flight when the 429 came (and their asks) took the rest.
      const created = results.filter((r) => r.disbursement).length;
      expect(created).toBeLessThanOrEqual((60 - 3 * 3) / 2);
      expect(created).toBeGreaterThanOrEqual((60 - 3 * 3 - 2 * refusedBy429) / 2 - 1);

      const before = stack.sandbox.stats();
      const retry = await gql<Batch>(stack.graphqlUrl, BATCH, { inputs });
      expect(retry.errors).toBeUndefined();
      const again = retry.data!.createMobileMoneyDisbursements;
      expect(stack.sandbox.stats().createRequests).toBe(before.createRequests);
      expect(stack.sandbox.stats().statusRequests).toBe(before.statusRequests);
      again.forEach((result, i) => {
        const first = results[i];
        expect(result.referenceId).toBe(first.referenceId);
        if (first.disbursement) expect(result.disbursement?.identifier).toBe(first.disbursement.identifier);
        else if (kinds[i] === 'invalid') expect(result.error).toEqual(first.error);
        // Not sent, sent and not created, or unknown (the 500s): the provider's pause still holds, so nothing is sent.
        else expect(result.error?.code).toBe('RATE_LIMITED');
      });
    });
  });

  describe('with a provider that does not rate limit', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: env(), sandbox: { settleMs: 1000 } });
    });
    afterAll(() => stack.close());

    it('retried, sends only what was never created, and returns the same records', async () => {
      const inputs = Array.from({ length: 20 }, (_, i) =>
        mobileInput({
          referenceId: uniqueRef(`again-${i}`),
          accountNumber: i % 5 === 0 ? '260971234500' : '260971234567',
        }),
      );
      const first = (await gql<Batch>(stack.graphqlUrl, BATCH, { inputs })).data!.createMobileMoneyDisbursements;
      const second = (await gql<Batch>(stack.graphqlUrl, BATCH, { inputs })).data!.createMobileMoneyDisbursements;
      inputs.forEach((input, i) => {
        const ref = String(input.referenceId);
        if (i % 5 === 0) {
          // A 500 is an unknown outcome: inside RESEND_AFTER_SECONDS the retry asks and sends nothing.
          expect([first[i].error?.code, second[i].error?.code]).toEqual(['OUTCOME_UNKNOWN', 'OUTCOME_UNKNOWN']);
          expect(sends(stack, ref)).toBe(1);
        } else {
          expect(second[i].disbursement?.identifier).toBe(first[i].disbursement?.identifier);
          expect(sends(stack, ref)).toBe(1);
        }
      });
    });

    it('refuses a batch with a repeated referenceId whole, naming the items, and sends nothing', async () => {
      const repeated = uniqueRef('twice');
      const inputs = [
        mobileInput({ referenceId: repeated }),
        mobileInput(),
        mobileInput({ referenceId: repeated, amount: '2' }),
      ];
      const res = await gql<Batch>(stack.graphqlUrl, BATCH, { inputs });
      expect(res.data).toBeNull();
      expect(res.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: ['inputs.0.referenceId', 'inputs.2.referenceId'],
      });
      for (const input of inputs) expect(sends(stack, String(input.referenceId))).toBe(0);
    });

    it('lets 100 items through the query limits and refuses 101 whole, over HTTP and websockets', async () => {
      const hundred = Array.from({ length: 100 }, () => mobileInput({ amount: '1' }));
      const ok = await gql<Batch>(stack.graphqlUrl, BATCH, { inputs: hundred });
      expect(ok.errors).toBeUndefined();
      expect(ok.data!.createMobileMoneyDisbursements.every((r) => r.disbursement?.status === 'PENDING')).toBe(true);

      const tooMany = [...Array.from({ length: 100 }, () => mobileInput()), mobileInput()];
      const refused = await gql<Batch>(stack.graphqlUrl, BATCH, { inputs: tooMany });
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['inputs'] });
      const client = wsClient(stack.graphqlUrl);
      try {
        const overWs = subscribe<Batch>(client, BATCH, { inputs: tooMany });
        await overWs.completed;
        expect(overWs.errors).toEqual([
          expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }),
        ]);
      } finally {
        await client.dispose();
      }
      for (const input of tooMany) expect(sends(stack, String(input.referenceId))).toBe(0);
    });

    it('takes bank payouts the same way, with field paths of the item', async () => {
      const inputs = [
        bankInput({ amount: '25', narration: 'Payroll' }),
        bankInput({ amount: '25', narration: 'Payroll', swiftCode: 'X' }),
      ];
      const res = await gql<{ createBankDisbursements: Result[] }>(stack.graphqlUrl, BANK_BATCH, { inputs });
      expect(res.errors).toBeUndefined();
      const [good, bad] = res.data!.createBankDisbursements;
      expect(good.disbursement?.status).toBe('PENDING');
      expect(bad.error).toEqual({ code: 'BAD_USER_INPUT', fields: ['inputs.1.swiftCode'] });
    });
  });
});
