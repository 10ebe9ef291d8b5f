import { CREATE_MOBILE, gql, mobileInput, Stack, startStack, subscriptionsLive } from '../support/stack';
import { subscribeOver, Transport, TRANSPORTS } from '../support/streams';
import { PayoutRow, WATCH } from '../support/fixtures';

const UPDATES = `subscription Updates { disbursementUpdates { referenceId status } }`;
const EVENTS = `subscription Events($after: String) { disbursementEvents(after: $after) { cursor disbursement { referenceId status } } }`;

const APP = 'https://app.example';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { CORS_ORIGINS: APP } });
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
    const sub = subscribeOver<{ disbursementUpdated: PayoutRow }>(transport, stack.graphqlUrl, WATCH, { referenceId });
    await sub.completed;
    expect(sub.errors).toEqual([]);
    expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    await sub.close();
  });

  it('disbursementUpdates and disbursementEvents: every change of the merchant, the second with cursors', async () => {
    const updates = subscribeOver<{ disbursementUpdates: PayoutRow }>(transport, stack.graphqlUrl, UPDATES);
    const events = subscribeOver<{ disbursementEvents: { cursor: string; disbursement: PayoutRow } }>(
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

/** The events of a server-sent event stream read to its end: each `event:` with its `data:`. */
async function eventsOf(res: Response): Promise<{ event: string; data: string }[]> {
  const text = await res.text();
  return [...text.matchAll(/^event: (\w+)\ndata:(.*)$/gm)].map(([, event, data]) => ({ event, data: data.trim() }));
}

describe('server-sent events with GET, as a browser EventSource sends them', () => {
  it('a subscription in ?query= with its variables: PENDING, SUCCESSFUL, then complete', async () => {
    const referenceId = await create();
    // A short selection, so the events can be compared byte for byte.
    const search = new URLSearchParams({
      query: `subscription Watch($referenceId: ID!) { disbursementUpdated(referenceId: $referenceId) { referenceId status } }`,
      variables: JSON.stringify({ referenceId }),
      operationName: 'Watch',
    });
    const res = await fetch(`${stack.graphqlUrl}/stream?${search.toString()}`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await eventsOf(res)).toEqual([
      { event: 'next', data: JSON.stringify({ data: { disbursementUpdated: { referenceId, status: 'PENDING' } } }) },
      { event: 'next', data: JSON.stringify({ data: { disbursementUpdated: { referenceId, status: 'SUCCESSFUL' } } }) },
      { event: 'complete', data: '' },
    ]);
  });
});

describe('CORS on /graphql/stream', () => {
  const preflight = (origin: string) =>
    fetch(`${stack.graphqlUrl}/stream`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
  const query = (origin: string) =>
    fetch(`${stack.graphqlUrl}/stream?${new URLSearchParams({ query: '{ __typename }' }).toString()}`, {
      headers: { origin, accept: 'text/event-stream' },
    });

  it('lets a page on a CORS_ORIGINS origin preflight and read the stream', async () => {
    const allowed = await preflight(APP);
    await allowed.text();
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('access-control-allow-methods')).toMatch(/\bPOST\b/);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/\bauthorization\b.*\bcontent-type\b/);
    const read = await query(APP);
    expect(read.headers.get('access-control-allow-origin')).toBe(APP);
    expect(await eventsOf(read)).toEqual([
      { event: 'next', data: JSON.stringify({ data: { __typename: 'Query' } }) },
      { event: 'complete', data: '' },
    ]);
  });

  it('refuses the preflight of any other origin, and gives its requests nothing a browser would hand over', async () => {
    const refused = await preflight('https://evil.example');
    await refused.text();
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const read = await query('https://evil.example');
    await read.text();
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });
});
