import { Client } from 'graphql-ws';
import {
  CREATE_MOBILE,
  DISBURSEMENT_FIELDS,
  eventually,
  gql,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
} from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

type Updated = { disbursementUpdated: PayoutRow };

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;

let stack: Stack;
let client: Client;
beforeAll(async () => {
  // Settling after 1.5 s: a watcher that subscribes right after its create sees PENDING first even on a loaded
  // machine (with the default 400 ms a slow subscribe could find the payout final already).
  // Checkpoints hourly: the query test counts database calls, and a checkpoint round between its two readings
  // (every 5 s by default) reads the chain heads.
  stack = await startStack({ env: { AUDIT_CHECKPOINT_SECONDS: '3600' }, sandbox: { settleMs: 1500 } });
  client = wsClient(stack.graphqlUrl);
});
afterAll(async () => {
  await client.dispose();
  await stack.close();
});

async function create(accountNumber = '260971234567'): Promise<string> {
  const input = mobileInput({ accountNumber });
  const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
  expect(res.errors).toBeUndefined();
  return input.referenceId as string;
}

describe('disbursementUpdated', () => {
  it('sends the current state, then SUCCESSFUL from the callback exactly once, then completes', async () => {
    const referenceId = await create();
    const sub = subscribe<Updated>(client, WATCH, { referenceId });
    await sub.completed;
    expect(sub.errors).toEqual([]);
    expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    const final = sub.events[1].disbursementUpdated;
    expect(final.history.map((h) => [h.status, h.source])).toEqual([
      ['PENDING', 'CREATE'],
      ['SUCCESSFUL', 'CALLBACK'],
    ]);
  });

  it('ends FAILED with the provider message for an account ending 000', async () => {
    const referenceId = await create('260971234000');
    const sub = subscribe<Updated>(client, WATCH, { referenceId });
    await sub.completed;
    const statuses = sub.events.map((e) => e.disbursementUpdated.status);
    expect(statuses).toEqual(['PENDING', 'FAILED']);
    expect(sub.events[1].disbursementUpdated.message).toEqual(expect.any(String));
  });

  it('keeps an account ending 222 PENDING and the subscription open', async () => {
    const referenceId = await create('260971234222');
    const sub = subscribe<Updated>(client, WATCH, { referenceId });
    await sub.waitFor(1);
    // A payout created after it settles one settle period after its create, and its events come over the same
    // socket: once it has completed, a change of the first (due sooner) would have arrived before it.
    const later = subscribe<Updated>(client, WATCH, { referenceId: await create() });
    await later.completed;
    expect(later.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING']);
    expect(sub.isCompleted()).toBe(false);
    sub.dispose();
  });

  it('gives a subscriber who arrives after the callback the final state at once', async () => {
    const referenceId = await create();
    await eventually(async () => {
      const res = await gql<{ disbursement: PayoutRow }>(stack.graphqlUrl, QUERY, { referenceId });
      return res.data?.disbursement.status === 'SUCCESSFUL' ? true : undefined;
    });
    const sub = subscribe<Updated>(client, WATCH, { referenceId });
    await sub.completed;
    expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['SUCCESSFUL']);
  });

  it('waits for a payout that does not exist yet and follows it once created', async () => {
    const input = mobileInput();
    const sub = subscribe<Updated>(client, WATCH, { referenceId: input.referenceId });
    await subscriptionsLive(stack, 1);
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    await sub.completed;
    expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
  });
});

describe('disbursementUpdates', () => {
  it("streams every change of the merchant's payouts", async () => {
    const sub = subscribe<{ disbursementUpdates: PayoutRow }>(
      client,
      `subscription { disbursementUpdates { referenceId status } }`,
    );
    await subscriptionsLive(stack, 1);
    const a = await create();
    const b = await create('260971234000');
    await eventually(() => {
      const mine = sub.events.filter((e) => [a, b].includes(e.disbursementUpdates.referenceId));
      return mine.length >= 4 ? mine : undefined;
    });
    // Changes come over the stream in order: once a later payout's final change is in, a repeat of a's or b's is not.
    const c = await create();
    await eventually(() =>
      sub.events.some((e) => e.disbursementUpdates.referenceId === c && e.disbursementUpdates.status === 'SUCCESSFUL')
        ? true
        : undefined,
    );
    const seen = sub.events
      .map((e) => e.disbursementUpdates)
      .filter((e) => [a, b].includes(e.referenceId))
      .map((e) => `${e.referenceId === a ? 'a' : 'b'}:${e.status}`);
    expect(seen.sort()).toEqual(['a:PENDING', 'a:SUCCESSFUL', 'b:FAILED', 'b:PENDING']);
    sub.dispose();
  });
});

describe('queries', () => {
  it('reads N payouts in one database call, null for unknown ids, in the order asked', async () => {
    // Payouts that stay PENDING with no callback: a callback's own read would land in the count.
    const ids = [await create('260971234222'), await create('260971234222'), await create('260971234222')];
    const asked = [ids[0], 'nope-1', ids[1], ids[2], 'nope-2'];
    const before = stack.gateway.storeCalls();
    const res = await gql<{ disbursements: (PayoutRow | null)[] }>(
      stack.graphqlUrl,
      `query Many($ids: [ID!]!) { disbursements(referenceIds: $ids) { referenceId status } }`,
      { ids: asked },
    );
    expect(stack.gateway.storeCalls() - before).toBe(1);
    expect(res.data?.disbursements.map((d) => d?.referenceId ?? null)).toEqual([ids[0], null, ids[1], ids[2], null]);
  });

  it('refuses more than 100 ids naming the argument', async () => {
    const res = await gql(
      stack.graphqlUrl,
      `query Many($ids: [ID!]!) { disbursements(referenceIds: $ids) { referenceId } }`,
      {
        ids: Array.from({ length: 101 }, (_, i) => `id-${i}`),
      },
    );
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['referenceIds'] });
  });

  it('answers null for an unknown referenceId', async () => {
    const res = await gql(stack.graphqlUrl, QUERY, { referenceId: 'never-seen' });
    expect(res.data).toEqual({ disbursement: null });
  });
});

describe('refresh', () => {
  it('reconciles a record from check-status when its callback never arrived', async () => {
    // The provider is given a dead callback address, so only a status check can tell the outcome.
    const deaf = await startStack({ env: { PUBLIC_URL: 'http://127.0.0.1:9' }, sandbox: { callbackMaxAttempts: 1 } });
    try {
      const input = mobileInput();
      await gql(deaf.graphqlUrl, CREATE_MOBILE, { input });
      await eventually(() =>
        deaf.sandbox.records().find((r) => r.referenceId === input.referenceId && r.status === 'Successful'),
      );
      const stale = await gql<{ disbursement: PayoutRow }>(deaf.graphqlUrl, QUERY, { referenceId: input.referenceId });
      expect(stale.data?.disbursement.status).toBe('PENDING');
      const fresh = await gql<{ disbursement: PayoutRow & { externalId: string } }>(
        deaf.graphqlUrl,
        `query R($referenceId: ID!) { disbursement(referenceId: $referenceId, refresh: true) { ${DISBURSEMENT_FIELDS} } }`,
        { referenceId: input.referenceId },
      );
      expect(fresh.data?.disbursement.status).toBe('SUCCESSFUL');
      expect(fresh.data?.disbursement.externalId).toEqual(expect.any(String));
      expect(fresh.data?.disbursement.history.map((h) => [h.status, h.source])).toEqual([
        ['PENDING', 'CREATE'],
        ['SUCCESSFUL', 'STATUS_CHECK'],
      ]);
    } finally {
      await deaf.close();
    }
  });
});

describe('refresh argument', () => {
  it('accepts an explicit null, as the contract types it Boolean = false', async () => {
    const res = await gql(
      stack.graphqlUrl,
      `query R($r: ID!) { disbursement(referenceId: $r, refresh: null) { referenceId } }`,
      {
        r: 'never-seen',
      },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ disbursement: null });
  });
});
