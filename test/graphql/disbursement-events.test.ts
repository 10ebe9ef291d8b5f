import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachEngine } from '../support/modes';
import { CREATE_MOBILE, gql, knownSecrets, mobileInput, Stack, startStack, subscriptionsLive } from '../support/stack';
import { codesOf, subscribeOver, TRANSPORTS } from '../support/streams';

const A = { id: 'merchant-a', apiKey: 'key-events-merchant-a-0123456789', token: 'tok_events_merchant_a_0123456789' };
const B = { id: 'merchant-b', apiKey: 'key-events-merchant-b-0123456789', token: 'tok_events_merchant_b_0123456789' };
const bearer = (m: typeof A) => `Bearer ${m.token}`;

type Change = { cursor: string; disbursement: { referenceId: string; status: string } };
type Events = { disbursementEvents: Change };
const EVENTS = `subscription Events($after: String) { disbursementEvents(after: $after) { cursor disbursement { referenceId status } } }`;

function merchantsFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
  writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
  for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
  return file;
}

const changesOf = (events: Events[]) => events.map((e) => e.disbursementEvents);
const shape = (changes: Change[]) => changes.map((c) => `${c.disbursement.referenceId}:${c.disbursement.status}`);

describeEachEngine('disbursementEvents', (env) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      env: { ...env(), MERCHANTS_FILE: merchantsFile() },
      sandbox: { activeKeys: [A.apiKey, B.apiKey] },
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  async function create(m: typeof A, accountNumber = '260971234567'): Promise<string> {
    const input = mobileInput({ accountNumber });
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input }, { authorization: bearer(m) });
    expect(res.errors).toBeUndefined();
    return input.referenceId as string;
  }

  it.each(TRANSPORTS)(
    'over %s: replays every change after a cursor in order, once each, then goes on live',
    async (transport) => {
      const live = subscribeOver<Events>(transport, stack.graphqlUrl, EVENTS, {}, bearer(A));
      await subscriptionsLive(stack, 1);
      const refs = [await create(A), await create(A, '260971234000'), await create(A)];
      await live.waitFor(6);
      const seen = changesOf(live.events);
      expect(new Set(shape(seen))).toEqual(
        new Set(refs.flatMap((r, i) => [`${r}:PENDING`, `${r}:${i === 1 ? 'FAILED' : 'SUCCESSFUL'}`])),
      );
      await live.close();

      const resumed = subscribeOver<Events>(transport, stack.graphqlUrl, EVENTS, { after: seen[1].cursor }, bearer(A));
      await resumed.waitFor(4);
      const later = await create(A, '260971234222');
      await resumed.waitFor(5);
      const replayed = changesOf(resumed.events);
      expect(replayed.slice(0, 4)).toEqual(seen.slice(2));
      expect(shape(replayed.slice(4))).toEqual([`${later}:PENDING`]);
      expect(new Set(replayed.map((c) => c.cursor)).size).toBe(replayed.length);
      expect(resumed.errors).toEqual([]);
      await resumed.close();
    },
  );

  it.each(TRANSPORTS)('over %s: a forged or altered cursor is BAD_USER_INPUT', async (transport) => {
    const live = subscribeOver<Events>(transport, stack.graphqlUrl, EVENTS, {}, bearer(A));
    await subscriptionsLive(stack, 1);
    await create(A);
    const [{ cursor }] = changesOf(await live.waitFor(1));
    await live.close();
    const [position, mac] = cursor.split('.');
    const [ms, seq] = position.split('-');
    for (const forged of [
      'nonsense',
      '',
      `${ms}-${Number(seq) + 1}.${mac}`,
      `${position}.${'A'.repeat(mac.length)}`,
      `${cursor}.x`,
    ]) {
      const sub = subscribeOver<Events>(transport, stack.graphqlUrl, EVENTS, { after: forged }, bearer(A));
      await sub.completed.catch(() => undefined);
      expect(sub.events).toEqual([]);
      expect(codesOf(sub.errors)).toEqual(['BAD_USER_INPUT']);
      await sub.close();
    }
  });

  it("never replays another merchant's changes: its cursor is BAD_USER_INPUT", async () => {
    const ofA = subscribeOver<Events>('websocket', stack.graphqlUrl, EVENTS, {}, bearer(A));
    await subscriptionsLive(stack, 1);
    await create(A);
    const [{ cursor }] = changesOf(await ofA.waitFor(1));
    await ofA.close();
    const asB = subscribeOver<Events>('websocket', stack.graphqlUrl, EVENTS, { after: cursor }, bearer(B));
    await asB.completed.catch(() => undefined);
    expect(asB.events).toEqual([]);
    expect(codesOf(asB.errors)).toEqual(['BAD_USER_INPUT']);
    await asB.close();
  });
});

describeEachEngine('disbursementEvents after EVENT_RETENTION_SECONDS', (env) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { ...env(), EVENT_RETENTION_SECONDS: '1' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  it.each(TRANSPORTS)('over %s: a cursor older than what is kept is CURSOR_EXPIRED', async (transport) => {
    const live = subscribeOver<Events>(transport, stack.graphqlUrl, EVENTS);
    await subscriptionsLive(stack, 1);
    const input = mobileInput();
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    const [{ cursor }] = changesOf(await live.waitFor(1));
    await live.close();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const sub = subscribeOver<Events>(transport, stack.graphqlUrl, EVENTS, { after: cursor });
    await sub.completed.catch(() => undefined);
    expect(sub.events).toEqual([]);
    expect(codesOf(sub.errors)).toEqual(['CURSOR_EXPIRED']);
    await sub.close();
  });
});
