import { TestIdp } from '../support/idp';
import { describeEachEngine } from '../support/modes';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';
import { PayoutRow } from '../support/fixtures';

const SCOPES = 'payouts:read payouts:write';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** 15 aliases refreshing the given records: the shape that spent a merchant's provider limit in 88 ms. */
const refreshAliases = (refs: readonly string[]) =>
  `query Refresh { ${refs.map((r, i) => `a${i}: disbursement(referenceId: "${r}", refresh: true) { referenceId status }`).join(' ')} }`;

describeEachEngine('the provider budget', (storeEnv) => {
  describe('reads cannot spend what creates need', () => {
    let idp: TestIdp;
    let stack: Stack;
    beforeAll(async () => {
      idp = await TestIdp.start();
      // The provider allows 120 calls a minute per key, as the real one does; the gateway budgets 100.
      stack = await startStack({
        env: { ...storeEnv(), JWT_JWKS_URL: idp.jwksUrl, JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience },
        sandbox: { rateLimitPerMin: 120 },
      });
    });
    afterAll(async () => {
      await stack.close();
      await idp.close();
    });

    it('120 refresh aliases from a read-only token, then a create: the create is sent and PENDING', async () => {
      const writer = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES } });
      const reader = await idp.sign({ claims: { merchant_id: 'default', scope: 'payouts:read' } });
      // 30 payouts that stay PENDING (…222): every refresh of them would be a status check.
      const refs: string[] = [];
      for (let i = 0; i < 30; i += 1) {
        const res = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(
          stack.graphqlUrl,
          CREATE_MOBILE,
          { input: mobileInput({ accountNumber: '260971234222' }) },
          bearer(writer),
        );
        expect(res.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
        refs.push(res.data!.createMobileMoneyDisbursement.referenceId);
      }
      const checksBefore = stack.sandbox.stats().statusRequests;
      // 8 operations of 15 aliases, together 120 refreshes over the 30 payouts.
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, op) =>
          gql<Record<string, PayoutRow>>(
            stack.graphqlUrl,
            refreshAliases(refs.slice((op * 15) % 30, ((op * 15) % 30) + 15)),
            {},
            bearer(reader),
          ),
        ),
      );
      // Every refresh is answered (from the store when not checked), none fails.
      for (const answer of answers) {
        expect(answer.errors).toBeUndefined();
        expect(Object.values(answer.data ?? {}).every((r) => r.status === 'PENDING')).toBe(true);
      }
      expect(stack.sandbox.stats().statusRequests - checksBefore).toBeLessThanOrEqual(50);

      const createsBefore = stack.sandbox.stats().createRequests;
      const created = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(
        stack.graphqlUrl,
        CREATE_MOBILE,
        { input: mobileInput() },
        bearer(writer),
      );
      expect(created.errors).toBeUndefined();
      expect(created.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
      expect(stack.sandbox.stats().createRequests).toBe(createsBefore + 1);
    });

    it('a refresh of a final record never calls the provider', async () => {
      const writer = await idp.sign({ claims: { merchant_id: 'default', scope: SCOPES } });
      const failed = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(
        stack.graphqlUrl,
        CREATE_MOBILE,
        { input: mobileInput({ accountNumber: '260971234111' }) },
        bearer(writer),
      );
      expect(failed.data?.createMobileMoneyDisbursement.status).toBe('FAILED');
      const before = stack.sandbox.stats().statusRequests;
      const ref = failed.data!.createMobileMoneyDisbursement.referenceId;
      const res = await gql<Record<string, PayoutRow>>(
        stack.graphqlUrl,
        refreshAliases(Array(15).fill(ref)),
        {},
        bearer(writer),
      );
      expect(Object.values(res.data ?? {}).map((r) => r.status)).toEqual(Array(15).fill('FAILED'));
      expect(stack.sandbox.stats().statusRequests).toBe(before);
    });
  });

  describe('phantom callbacks', () => {
    let stack: Stack;
    beforeAll(async () => {
      // No WEBHOOK_SECRET: the path token is the callbacks' only credential.
      stack = await startStack({ env: { ...storeEnv(), WEBHOOK_SECRET: '' }, sandbox: { rateLimitPerMin: 120 } });
    });
    afterAll(() => stack.close());

    it('300 phantom callbacks, then a create: the create is sent, and status checks stay within the budget', async () => {
      const url = stack.gateway.callbackUrl('default');
      const before = stack.sandbox.stats().statusRequests;
      const post = async () => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ referenceId: uniqueRef('phantom'), status: 'Pending', amount: 1, currency: 'ZMW' }),
        });
        await res.text();
        return res.status;
      };
      // 50 at a time: under the gateway's cap on connections per address.
      const statuses: number[] = [];
      for (let round = 0; round < 6; round += 1)
        statuses.push(...(await Promise.all(Array.from({ length: 50 }, post))));
      // Beyond a few a minute they wait (503, delivered again later); none is kept.
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(290);
      expect(stack.sandbox.stats().statusRequests - before).toBeLessThanOrEqual(5);

      const createsBefore = stack.sandbox.stats().createRequests;
      const created = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, {
        input: mobileInput(),
      });
      expect(created.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
      expect(stack.sandbox.stats().createRequests).toBe(createsBefore + 1);
    });
  });

  describe('a provider 429', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: storeEnv(), sandbox: { rateLimitPerMin: 3 } });
    });
    afterAll(() => stack.close());

    it('pauses the key: a create in the pause is RATE_LIMITED with retryAfter and not sent; a read answers from the store', async () => {
      const first = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, {
        input: mobileInput(),
      });
      expect(first.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
      const ref = first.data!.createMobileMoneyDisbursement.referenceId;
      // Spend the provider's own limit until it answers 429.
      await eventually(async () => {
        const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
        return res.errors?.[0].extensions?.code === 'RATE_LIMITED' ? true : undefined;
      }, 5);
      const sent = stack.sandbox.stats();

      const paused = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
      expect(paused.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
      expect(paused.errors?.[0].extensions?.retryAfter as number).toBeGreaterThanOrEqual(1);
      const batch = await gql<{ createMobileMoneyDisbursements: { error: { code: string } | null }[] }>(
        stack.graphqlUrl,
        `mutation ($i: [MobileMoneyDisbursementInput!]!) { createMobileMoneyDisbursements(inputs: $i) { error { code } } }`,
        { i: [mobileInput(), mobileInput()] },
      );
      expect(batch.data?.createMobileMoneyDisbursements.map((r) => r.error?.code)).toEqual([
        'RATE_LIMITED',
        'RATE_LIMITED',
      ]);

      const read = await gql<{ disbursement: PayoutRow }>(
        stack.graphqlUrl,
        `query ($r: ID!) { disbursement(referenceId: $r, refresh: true) { referenceId status } }`,
        {
          r: ref,
        },
      );
      expect(read.errors).toBeUndefined();
      expect(read.data?.disbursement.referenceId).toBe(ref);

      const after = stack.sandbox.stats();
      expect(after.createRequests).toBe(sent.createRequests);
      expect(after.statusRequests).toBe(sent.statusRequests);
    });
  });
});
