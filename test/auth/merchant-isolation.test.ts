import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'graphql-ws';
import {
  CREATE_MOBILE,
  eventually,
  gql,
  knownSecrets,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
} from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

const A = { id: 'merchant-a', apiKey: 'key-merchant-a-0123456789', token: 'tok_merchant_a_client_0123456789' };
const B = { id: 'merchant-b', apiKey: 'key-merchant-b-0123456789', token: 'tok_merchant_b_client_0123456789' };
const auth = (m: typeof A) => ({ authorization: `Bearer ${m.token}` });

let stack: Stack;
let clientA: Client;
let clientB: Client;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'merchants-'));
  const file = join(dir, 'merchants.json');
  writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
  stack = await startStack({ env: { MERCHANTS_FILE: file }, sandbox: { activeKeys: [A.apiKey, B.apiKey] } });
  for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
  clientA = wsClient(stack.graphqlUrl, auth(A));
  clientB = wsClient(stack.graphqlUrl, auth(B));
});
afterAll(async () => {
  await clientA.dispose();
  await clientB.dispose();
  await stack.close();
});

const create = (m: typeof A, input: Record<string, unknown>) =>
  gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input }, auth(m));

describe('two merchants on one gateway', () => {
  it("cannot read each other's payouts: another merchant's referenceId reads as null", async () => {
    const input = mobileInput();
    expect((await create(A, input)).errors).toBeUndefined();
    const one = `query One($r: ID!) { disbursement(referenceId: $r) { referenceId } }`;
    expect((await gql(stack.graphqlUrl, one, { r: input.referenceId }, auth(A))).data).toEqual({
      disbursement: { referenceId: input.referenceId },
    });
    expect((await gql(stack.graphqlUrl, one, { r: input.referenceId }, auth(B))).data).toEqual({ disbursement: null });
    const refresh = `query R($r: ID!) { disbursement(referenceId: $r, refresh: true) { referenceId } }`;
    expect((await gql(stack.graphqlUrl, refresh, { r: input.referenceId }, auth(B))).data).toEqual({
      disbursement: null,
    });
    const many = `query M($r: [ID!]!) { disbursements(referenceIds: $r) { referenceId } }`;
    expect((await gql(stack.graphqlUrl, many, { r: [input.referenceId] }, auth(B))).data).toEqual({
      disbursements: [null],
    });
  });

  it("cannot subscribe to each other's payouts or streams", async () => {
    const input = mobileInput();
    const streamB = subscribe<{ disbursementUpdates: PayoutRow }>(
      clientB,
      `subscription { disbursementUpdates { referenceId status } }`,
    );
    const watchB = subscribe<{ disbursementUpdated: PayoutRow }>(clientB, WATCH, { referenceId: input.referenceId });
    await subscriptionsLive(stack, 2);
    await create(A, input);
    const watchA = subscribe<{ disbursementUpdated: PayoutRow }>(clientA, WATCH, { referenceId: input.referenceId });
    await watchA.completed;
    expect(watchA.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    // B's own payout, created after A's has settled, reaches B over the same socket: once its final change is in,
    // anything of A's that leaked to B would have come before it.
    const own = mobileInput();
    await create(B, own);
    await eventually(() =>
      streamB.events.some(
        (e) => e.disbursementUpdates.referenceId === own.referenceId && e.disbursementUpdates.status === 'SUCCESSFUL',
      )
        ? true
        : undefined,
    );
    expect(watchB.events).toEqual([]);
    expect(streamB.events.filter((e) => e.disbursementUpdates.referenceId === input.referenceId)).toEqual([]);
    watchB.dispose();
    streamB.dispose();
  });

  it("cannot replay or conflict with each other's payouts: the same referenceId is a separate payout", async () => {
    const input = mobileInput();
    const a = await create(A, input);
    const replay = await create(B, input);
    expect(replay.errors).toBeUndefined();
    expect(replay.data?.createMobileMoneyDisbursement.identifier).not.toBe(
      a.data?.createMobileMoneyDisbursement.identifier,
    );
    const changed = await create(B, { ...input, referenceId: mobileInput().referenceId });
    expect(changed.errors).toBeUndefined();
    const conflictForA = await create(A, { ...input, amount: '1.00' });
    expect(conflictForA.errors?.[0].extensions?.code).toBe('REFERENCE_CONFLICT');
  });

  it('refuses a token that belongs to neither merchant', async () => {
    const res = await gql(
      stack.graphqlUrl,
      '{ __typename }',
      {},
      { authorization: 'Bearer tok_nobody_0000000000000000' },
    );
    expect(res.status).toBe(401);
  });
});
