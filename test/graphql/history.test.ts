import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachEngine } from '../support/modes';
import { bankInput, eventually, gql, knownSecrets, mobileInput, Stack, startStack } from '../support/stack';

const A = { id: 'merchant-a', apiKey: 'key-merchant-a-0123456789', token: 'tok_history_a_client_0123456789' };
const B = { id: 'merchant-b', apiKey: 'key-merchant-b-0123456789', token: 'tok_history_b_client_0123456789' };
type M = typeof A;
const auth = (m: M) => ({ authorization: `Bearer ${m.token}` });

type Node = { referenceId: string; status: string; channel: string };
type Connection = {
  disbursementHistory: {
    edges: { cursor: string; node: Node }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    totalCount: number | null;
  };
};
const HISTORY = `query History($first: Int, $after: String, $filter: DisbursementFilter) {
  disbursementHistory(first: $first, after: $after, filter: $filter) {
    edges { cursor node { referenceId status channel } }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`;
const MOBILE_BATCH = `mutation ($inputs: [MobileMoneyDisbursementInput!]!) { createMobileMoneyDisbursements(inputs: $inputs) { referenceId error { code } } }`;
const BANK_BATCH = `mutation ($inputs: [BankDisbursementInput!]!) { createBankDisbursements(inputs: $inputs) { referenceId error { code } } }`;
const CREATE = `mutation ($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId } }`;

/** Mixed outcomes: every 5th fails at once (…111), every 7th stays PENDING (…222), the rest succeed. */
const accountFor = (i: number) => (i % 5 === 0 ? '260971234111' : i % 7 === 0 ? '260971234222' : '260971234567');
const expectedStatus = (i: number) => (i % 5 === 0 ? 'FAILED' : i % 7 === 0 ? 'PENDING' : 'SUCCESSFUL');

describeEachEngine('disbursementHistory', (env) => {
  let stack: Stack;
  const run = randomUUID().slice(0, 8);
  /** referenceId → the status it settles at, for merchant A's first 250 payouts. */
  const expected = new Map<string, string>();
  const bank = new Set<string>();
  const ofB = new Set<string>();
  let secondBatchFrom = 0;
  let secondBatchTo = 0;

  const history = async (m: M, variables: Record<string, unknown>) => {
    const res = await gql<Connection>(stack.graphqlUrl, HISTORY, variables, auth(m));
    expect(res.errors).toBeUndefined();
    return res.data!.disbursementHistory;
  };

  /** Every node of a filtered listing, following cursors. */
  const all = async (m: M, filter: Record<string, unknown>, first = 40) => {
    const nodes: Node[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await history(m, { first, after, filter });
      nodes.push(...page.edges.map((e) => e.node));
      if (!page.pageInfo.hasNextPage) return nodes;
      after = page.pageInfo.endCursor;
    }
  };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'merchants-'));
    const file = join(dir, 'merchants.json');
    writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
    for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
    stack = await startStack({
      env: { ...env(), MERCHANTS_FILE: file },
      sandbox: { settleMs: 20, activeKeys: [A.apiKey, B.apiKey] },
    });

    const mobile = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => {
        const i = from + k;
        const referenceId = `${run}-m-${i}`;
        expected.set(referenceId, expectedStatus(i));
        return mobileInput({ referenceId, amount: '1', accountNumber: accountFor(i) });
      });
    const send = async (m: M, query: string, inputs: Record<string, unknown>[]) => {
      const res = await gql<Record<string, { error: unknown }[]>>(stack.graphqlUrl, query, { inputs }, auth(m));
      expect(res.errors).toBeUndefined();
      expect(Object.values(res.data!)[0].every((r) => r.error === null)).toBe(true);
    };
    await send(A, MOBILE_BATCH, mobile(0, 100));
    secondBatchFrom = Date.now();
    await send(A, MOBILE_BATCH, mobile(100, 200));
    secondBatchTo = Date.now();
    await send(A, MOBILE_BATCH, mobile(200, 220));
    const banks = Array.from({ length: 30 }, (_, i) => {
      const referenceId = `${run}-k-${i}`;
      expected.set(referenceId, expectedStatus(i));
      bank.add(referenceId);
      return bankInput({ referenceId, amount: '1', accountNumber: `0012345${accountFor(i).slice(-3)}` });
    });
    await send(A, BANK_BATCH, banks);
    const forB = Array.from({ length: 30 }, (_, i) => mobileInput({ referenceId: `${run}-m-b${i}`, amount: '1' }));
    for (const input of forB) ofB.add(String(input.referenceId));
    await send(B, MOBILE_BATCH, forB);
    // Wait until every callback has landed, so statuses are what `expected` says.
    await eventually(async () => {
      const pending = await history(A, { first: 100, filter: { status: ['PENDING'], referenceIdPrefix: run } });
      return pending.edges.length === [...expected.values()].filter((s) => s === 'PENDING').length ? true : undefined;
    });
  });
  afterAll(() => stack.close());

  it('pages through 250 payouts while 50 more arrive: each shown exactly once, newest first, none of another merchant', async () => {
    const fresh = Array.from({ length: 50 }, (_, i) => mobileInput({ referenceId: `${run}-new-${i}`, amount: '1' }));
    const seen: string[] = [];
    let after: string | null = null;
    let created = 0;
    let previousCursor: string | undefined;
    for (;;) {
      const page = await history(A, { first: 30, after });
      seen.push(...page.edges.map((e) => e.node.referenceId));
      if (previousCursor) expect(page.edges[0]?.cursor).not.toBe(previousCursor);
      previousCursor = page.edges.at(-1)?.cursor;
      // New payouts arrive between pages.
      for (const input of fresh.slice(created, created + 6)) {
        expect((await gql(stack.graphqlUrl, CREATE, { input }, auth(A))).errors).toBeUndefined();
      }
      created = Math.min(created + 6, fresh.length);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(created).toBe(50);
    expect(new Set(seen).size).toBe(seen.length);
    const listed = new Set(seen);
    for (const ref of expected.keys()) expect(listed.has(ref)).toBe(true);
    for (const ref of seen) expect(expected.has(ref) || ref.startsWith(`${run}-new-`)).toBe(true);
    for (const ref of ofB) expect(listed.has(ref)).toBe(false);
    // Newest first: the last batch (bank) before the first.
    expect(seen.indexOf(`${run}-k-0`)).toBeLessThan(seen.indexOf(`${run}-m-0`));

    const everything = await history(A, { first: 1 });
    expect(everything.totalCount).toBe(300);
    expect((await history(B, { first: 100 })).edges.map((e) => e.node.referenceId).sort()).toEqual([...ofB].sort());
  });

  it('combines filters, paging through each exactly once', async () => {
    const refs = (nodes: Node[]) => nodes.map((n) => n.referenceId).sort();
    const want = (keep: (ref: string, status: string) => boolean) =>
      [...expected]
        .filter(([ref, status]) => keep(ref, status))
        .map(([ref]) => ref)
        .sort();

    const failedMobile = await all(A, { status: ['FAILED'], channel: 'MOBILE_MONEY', referenceIdPrefix: run }, 7);
    expect(refs(failedMobile)).toEqual(want((ref, s) => s === 'FAILED' && !bank.has(ref)));

    const bankNotFailed = await all(A, { status: ['SUCCESSFUL', 'PENDING'], referenceIdPrefix: `${run}-k-` });
    expect(refs(bankNotFailed)).toEqual(want((ref, s) => bank.has(ref) && s !== 'FAILED'));
    expect(bankNotFailed.every((n) => n.channel === 'BANK')).toBe(true);

    const window = {
      createdFrom: new Date(secondBatchFrom).toISOString(),
      createdTo: new Date(secondBatchTo).toISOString(),
    };
    const second = await all(A, window, 30);
    expect(refs(second)).toEqual(want((ref) => /-m-(1\d\d)$/.test(ref)));
    expect((await history(A, { first: 5, filter: window })).totalCount).toBe(100);

    const secondSucceeded = await all(A, { ...window, status: ['SUCCESSFUL'] }, 9);
    expect(refs(secondSucceeded)).toEqual(want((ref, s) => /-m-(1\d\d)$/.test(ref) && s === 'SUCCESSFUL'));
    // Exact with any filter: the database counts without reading the records.
    const succeeded = { status: ['SUCCESSFUL'], referenceIdPrefix: `${run}-m-` };
    expect((await history(A, { filter: succeeded })).totalCount).toBe(
      want((ref, s) => ref.startsWith(`${run}-m-`) && s === 'SUCCESSFUL').length,
    );
    const failedBank = { status: ['FAILED'], channel: 'BANK', referenceIdPrefix: run };
    expect((await history(A, { filter: failedBank })).totalCount).toBe(
      want((ref, s) => s === 'FAILED' && bank.has(ref)).length,
    );

    expect(await all(B, { referenceIdPrefix: `${run}-m-1` })).toEqual([]);
  });

  it('refuses more than 100 a page, naming first, and a cursor it did not give out, naming after', async () => {
    const tooMany = await gql<Connection>(stack.graphqlUrl, HISTORY, { first: 101 }, auth(A));
    expect(tooMany.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['first'] });
    const forged = await gql<Connection>(stack.graphqlUrl, HISTORY, { after: 'bm90LWEtY3Vyc29y' }, auth(A));
    expect(forged.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['after'] });
  });
});
