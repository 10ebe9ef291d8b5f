import {
  CREATE_MOBILE,
  DISBURSEMENT_FIELDS,
  gql,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
} from '../support/stack';
import { subscribeOver, Transport, TRANSPORTS } from '../support/streams';

type Rec = { referenceId: string; status: string };
const WATCH = `subscription Watch($referenceId: ID!) { disbursementUpdated(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;
const UPDATES = `subscription Updates { disbursementUpdates { referenceId status } }`;
const EVENTS = `subscription Events($after: String) { disbursementEvents(after: $after) { cursor disbursement { referenceId status } } }`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

async function create(accountNumber = '260971234567'): Promise<string> {
  const input = mobileInput({ accountNumber });
  const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
  expect(res.errors).toBeUndefined();
  return input.referenceId as string;
}

describe.each(TRANSPORTS)('live status over %s', (transport: Transport) => {
  it('disbursementUpdated: PENDING, then SUCCESSFUL from the callback, then the end', async () => {
    const referenceId = await create();
    const sub = subscribeOver<{ disbursementUpdated: Rec }>(transport, stack.graphqlUrl, WATCH, { referenceId });
    await sub.completed;
    expect(sub.errors).toEqual([]);
    expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    await sub.close();
  });

  it('disbursementUpdates and disbursementEvents: every change of the merchant, the second with cursors', async () => {
    const updates = subscribeOver<{ disbursementUpdates: Rec }>(transport, stack.graphqlUrl, UPDATES);
    const events = subscribeOver<{ disbursementEvents: { cursor: string; disbursement: Rec } }>(
      transport,
      stack.graphqlUrl,
      EVENTS,
    );
    await subscriptionsLive(stack, 2);
    const referenceId = await create('260971234000');
    await updates.waitFor(2);
    await events.waitFor(2);
    const mine = events.events
      .map((e) => e.disbursementEvents)
      .filter((e) => e.disbursement.referenceId === referenceId);
    expect(mine.map((e) => e.disbursement.status)).toEqual(['PENDING', 'FAILED']);
    expect(new Set(mine.map((e) => e.cursor)).size).toBe(2);
    expect(
      updates.events
        .filter((e) => e.disbursementUpdates.referenceId === referenceId)
        .map((e) => e.disbursementUpdates.status),
    ).toEqual(['PENDING', 'FAILED']);
    expect([...updates.errors, ...events.errors]).toEqual([]);
    await Promise.all([updates.close(), events.close()]);
  });
});

describe('multipart heartbeats', () => {
  it('sends an empty part every 5 s while a subscription waits, so proxies keep the stream', async () => {
    const abort = new AbortController();
    const res = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0',
      },
      body: JSON.stringify({ query: WATCH, variables: { referenceId: 'never-created-heartbeat' } }),
      signal: abort.signal,
    });
    expect(res.headers.get('content-type')).toBe('multipart/mixed;boundary="graphql";subscriptionSpec="1.0"');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('\r\n\r\n{}\r\n--graphql')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe('\r\n--graphql\r\ncontent-type: application/json; charset=utf-8\r\n\r\n{}\r\n--graphql');
    abort.abort();
    await reader.cancel().catch(() => undefined);
  }, 15_000);
});
