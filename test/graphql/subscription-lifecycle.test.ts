import { Client } from 'graphql-ws';
import { getEventListeners } from 'node:events';
import { PubSubEvents } from '../../src/events/pubsub.events';
import { domain } from '../support/domain';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { listeningSessions } from '../support/postgres';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';
import { subscribe, Subscription, wsClient } from '../support/ws';
import { WATCH } from '../support/fixtures';

const WATCH_ALL = `subscription { disbursementUpdates { referenceId status } }`;

async function gauge(stack: Stack, name: string): Promise<number> {
  const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
}

async function gaugesAt(stack: Stack, subscriptions: number, sockets: number): Promise<void> {
  await eventually(async () =>
    (await gauge(stack, 'gateway_subscriptions_active')) === subscriptions &&
    (await gauge(stack, 'gateway_websocket_connections')) === sockets
      ? true
      : undefined,
  );
}

/** A payout that stays PENDING (account ending 222): its watchers wait on the next change. */
async function pendingPayout(stack: Stack): Promise<string> {
  const input = mobileInput({ accountNumber: '260971234222' });
  expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input })).errors).toBeUndefined();
  return input.referenceId as string;
}

/** 5 sockets × 20 operations: watchers of a pending payout, of a payout not created yet, and of the merchant. */
async function openHundred(stack: Stack): Promise<{ clients: Client[]; subs: Subscription<unknown>[] }> {
  const pending = await pendingPayout(stack);
  const clients = Array.from({ length: 5 }, () => wsClient(stack.graphqlUrl));
  const subs: Subscription<unknown>[] = [];
  for (const client of clients) {
    for (let i = 0; i < 20; i += 1) {
      if (i % 3 === 0) subs.push(subscribe(client, WATCH, { referenceId: pending }));
      else if (i % 3 === 1) subs.push(subscribe(client, WATCH, { referenceId: uniqueRef('never') }));
      else subs.push(subscribe(client, WATCH_ALL));
    }
  }
  await gaugesAt(stack, 100, 5);
  return { clients, subs };
}

describe('subscriptions end with their socket (the default embedded file)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  it('brings the gauges back to zero after 100 subscriptions on 5 sockets close', async () => {
    const { clients } = await openHundred(stack);
    for (const c of clients) await c.dispose();
    await gaugesAt(stack, 0, 0);
  });

  it('ends a subscription the client completes while the socket stays open', async () => {
    const client = wsClient(stack.graphqlUrl);
    try {
      const sub = subscribe(client, WATCH, { referenceId: await pendingPayout(stack) });
      const all = subscribe(client, WATCH_ALL);
      await gaugesAt(stack, 2, 1);
      sub.dispose();
      all.dispose();
      await gaugesAt(stack, 0, 1);
    } finally {
      await client.dispose();
    }
  });
});

describe('DisbursementService.watch and watchMerchant', () => {
  const merchant = { id: 'm1', apiKey: 'unused' };
  const target = new EventTarget();
  const events = new PubSubEvents({ eventTarget: target });
  const { service } = domain({ events });

  it('return() resolves at once while next() waits, answers that next() with done, and removes the listener', async () => {
    const watch = service.watch(merchant, 'r1')[Symbol.asyncIterator]();
    const next = watch.next();
    await eventually(() => (getEventListeners(target, 'disbursement:m1:r1').length === 1 ? true : undefined));
    await expect(watch.return?.()).resolves.toEqual({ done: true, value: undefined });
    await expect(next).resolves.toEqual({ done: true, value: undefined });
    expect(getEventListeners(target, 'disbursement:m1:r1')).toHaveLength(0);
  });

  it('does the same for a merchant stream', async () => {
    const watch = service.watchMerchant(merchant)[Symbol.asyncIterator]();
    const next = watch.next();
    expect(getEventListeners(target, 'merchant:m1')).toHaveLength(1);
    await expect(watch.return?.()).resolves.toEqual({ done: true, value: undefined });
    await expect(next).resolves.toEqual({ done: true, value: undefined });
    expect(getEventListeners(target, 'merchant:m1')).toHaveLength(0);
  });
});

describeEachEngine(
  'subscriptions end with their socket, and the listening connection stays one',
  (databaseEnv) => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: databaseEnv() });
    });
    afterAll(async () => {
      await stack.close();
    });

    it('keeps the one listening connection of the process, and adds none, as 100 subscriptions on 5 sockets come and go', async () => {
      const [listener] = await eventually(async () => {
        const pids = await listeningSessions(ownerUrl(databaseEnv()));
        return pids.length > 0 ? pids : undefined;
      });
      const { clients } = await openHundred(stack);
      expect(await listeningSessions(ownerUrl(databaseEnv()))).toEqual([listener]);
      for (const c of clients) await c.dispose();
      await gaugesAt(stack, 0, 0);
      expect(await listeningSessions(ownerUrl(databaseEnv()))).toEqual([listener]);
    });
  },
  { needs: ['listenNotify'] },
);
