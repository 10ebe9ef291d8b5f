import { Client } from 'graphql-ws';
import { capturedLogs, knownSecrets, Stack, startStack } from '../support/stack';
import { wsClient } from '../support/ws';

const TOKEN = 'tok_rules_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

type GraphQLErrorJson = { message: string; extensions?: { code?: string } };

let stack: Stack;
let client: Client;
beforeAll(async () => {
  knownSecrets.add(TOKEN);
  stack = await startStack({ env: { CLIENT_TOKENS: TOKEN, GRAPHQL_INTROSPECTION: 'false' } });
  client = wsClient(stack.graphqlUrl, { authorization: `Bearer ${TOKEN}` });
});
afterAll(async () => {
  await client.dispose();
  await stack.close();
});

async function overHttp(query: string): Promise<GraphQLErrorJson[]> {
  const res = await fetch(stack.graphqlUrl, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return ((await res.json()) as { errors?: GraphQLErrorJson[] }).errors ?? [];
}

function overWs(query: string): Promise<GraphQLErrorJson[]> {
  return new Promise((resolve) => {
    const errors: GraphQLErrorJson[] = [];
    client.subscribe(
      { query },
      {
        next: (result) => errors.push(...((result.errors ?? []) as GraphQLErrorJson[])),
        error: (error) => resolve([error].flat() as GraphQLErrorJson[]),
        complete: () => resolve(errors),
      },
    );
  });
}

const shape = (errors: GraphQLErrorJson[]) => errors.map((e) => ({ message: e.message, code: e.extensions?.code }));

describe('the same rules over HTTP and websockets', () => {
  it.each([
    [
      'introspection is refused when GRAPHQL_INTROSPECTION=false',
      '{ __schema { types { name } } }',
      'GRAPHQL_VALIDATION_FAILED',
    ],
    ['a type introspection too', '{ __type(name: "Disbursement") { name } }', 'GRAPHQL_VALIDATION_FAILED'],
    [
      'a misspelt field, with no suggestion',
      '{ disbursment(referenceId: "x") { status } }',
      'GRAPHQL_VALIDATION_FAILED',
    ],
    [
      'a misspelt argument, with no suggestion',
      '{ disbursement(referenceID: "x") { status } }',
      'GRAPHQL_VALIDATION_FAILED',
    ],
    ['a syntax error', '{ disbursement(', 'GRAPHQL_PARSE_FAILED'],
  ])('%s: identical answers', async (_name, query, code) => {
    const http = await overHttp(query);
    const ws = await overWs(query);
    expect(http.length).toBeGreaterThan(0);
    expect(http.every((e) => e.extensions?.code === code)).toBe(true);
    expect(shape(ws)).toEqual(shape(http));
    expect(JSON.stringify([http, ws])).not.toMatch(/Did you mean/);
  });

  it('still answers __typename, which is not introspection', async () => {
    expect(await overWs('{ __typename }')).toEqual([]);
    expect(await overHttp('{ __typename }')).toEqual([]);
  });
});

type Answer = { status: number; code?: string; message?: string };

/** What a client reads of a refusal: its status, and its first error's code and message. */
async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  if (!/json/.test(res.headers.get('content-type') ?? '')) return { status: res.status };
  const [error] = (JSON.parse(text) as { errors?: GraphQLErrorJson[] }).errors ?? [];
  return { status: res.status, code: error?.extensions?.code, message: error?.message };
}

describe('a request that cannot be read: the same answer over HTTP, multipart and SSE', () => {
  const post = (path: string, accept: string, body: unknown) =>
    fetch(`${stack.graphqlUrl}${path}`, {
      method: 'POST',
      headers: { ...AUTH, accept, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it.each([
    ['no query', { variables: {} }],
    ['an empty query', { query: '' }],
    ['a query that is not a string', { query: 5 }],
    ['variables that are not an object', { query: '{ __typename }', variables: [1] }],
    ['variables as a JSON string', { query: '{ __typename }', variables: '{}' }],
    ['extensions that are not an object', { query: '{ __typename }', extensions: [1] }],
    ['extensions as a JSON string', { query: '{ __typename }', extensions: '{}' }],
    ['an operationName that is not a string', { query: '{ __typename }', operationName: 1 }],
  ])('a POST with %s', async (_name, body) => {
    const http = await answerOf(await post('', 'application/json', body));
    expect(http).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(await answerOf(await post('', 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0', body))).toEqual(
      http,
    );
    expect(await answerOf(await post('/stream', 'text/event-stream', body))).toEqual(http);
  });

  it.each([
    ['no query', ''],
    ['variables that are not JSON', `query=${encodeURIComponent('{ __typename }')}&variables=%7B`],
    ['variables that are not an object', `query=${encodeURIComponent('{ __typename }')}&variables=%5B1%5D`],
    ['extensions that are not JSON', `query=${encodeURIComponent('{ __typename }')}&extensions=%7B`],
  ])('a GET with %s', async (_name, search) => {
    const http = await answerOf(
      await fetch(`${stack.graphqlUrl}?${search}`, { headers: { ...AUTH, 'apollo-require-preflight': 'true' } }),
    );
    expect(http).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    const sse = await fetch(`${stack.graphqlUrl}/stream?${search}`, {
      headers: { ...AUTH, accept: 'text/event-stream' },
    });
    expect(await answerOf(sse)).toEqual(http);
  });
});

/** gateway_graphql_operations_total of one transport, all operations and outcomes. */
async function operationsCounted(type: string): Promise<number> {
  const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
  const counted = [...text.matchAll(/^gateway_graphql_operations_total\{([^}]*)\} (\d+)$/gm)];
  return counted.filter(([, labels]) => labels.includes(`type="${type}"`)).reduce((sum, [, , n]) => sum + Number(n), 0);
}

describe('an operation a transport does not carry is refused before it is admitted', () => {
  const CANCEL = 'mutation Cancel { cancelDisbursement(referenceId: "never-created") { status } }';

  it('a mutation sent with GET to /graphql/stream: 405 BAD_REQUEST, as on /graphql, and not counted', async () => {
    const before = await operationsCounted('sse');
    const search = `?query=${encodeURIComponent(CANCEL)}`;
    const http = await fetch(`${stack.graphqlUrl}${search}`, {
      headers: { ...AUTH, 'apollo-require-preflight': 'true' },
    });
    const sse = await fetch(`${stack.graphqlUrl}/stream${search}`, {
      headers: { ...AUTH, accept: 'text/event-stream' },
    });
    const [httpAnswer, sseAnswer] = [await answerOf(http), await answerOf(sse)];
    expect(httpAnswer).toMatchObject({ status: 405, code: 'BAD_REQUEST' });
    expect(sseAnswer).toEqual({ ...httpAnswer, message: expect.stringMatching(/not mutation operations/) });
    expect(sse.headers.get('allow')).toBe(http.headers.get('allow'));
    expect(await operationsCounted('sse')).toBe(before);
  });

  it('a query sent as a multipart subscription: 400 BAD_REQUEST, and not counted', async () => {
    const before = await operationsCounted('multipart');
    const res = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { ...AUTH, accept: 'multipart/mixed;subscriptionSpec=1.0', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await answerOf(res)).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'Multipart answers subscriptions only: send queries and mutations as JSON',
    });
    expect(await operationsCounted('multipart')).toBe(before);
  });
});

describe('no credentials: 401 before anything else', () => {
  const persisted = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } }));
  it.each([
    ['a GET with only a persisted-query extension', `?extensions=${persisted}`, {}],
    ['a GET with a query', `?query=${encodeURIComponent('{ __typename }')}`, {}],
    ['a GET with nothing, asking for JSON', '', { accept: 'application/json' }],
    ['a GET with an unknown parameter', '?foo=bar', { 'apollo-require-preflight': 'true' }],
  ])('%s gets 401 and no error in the log', async (_name, search, headers) => {
    const logsBefore = capturedLogs.length;
    const res = await fetch(`${stack.graphqlUrl}${search}`, { headers });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { errors: GraphQLErrorJson[] }).errors[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect(capturedLogs.slice(logsBefore).join('')).not.toMatch(/"level":50|stack/);
  });

  it.each([
    ['Apollo Client', 'application/graphql-response+json,application/json;q=0.9'],
    ['GraphQL over HTTP only', 'application/graphql-response+json'],
    ['JSON only', 'application/json'],
    ['anything', '*/*'],
    ['both, JSON first', 'application/json, application/graphql-response+json'],
  ])('a 401 to %s has the media type Apollo Server answers that Accept with', async (_name, accept) => {
    const request = (headers: Record<string, string>) =>
      fetch(stack.graphqlUrl, {
        method: 'POST',
        headers: { accept, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
    const [refused, answered] = await Promise.all([request({}), request(AUTH)]);
    await Promise.all([refused.text(), answered.text()]);
    expect([refused.status, answered.status]).toEqual([401, 200]);
    expect(refused.headers.get('content-type')).toBe(answered.headers.get('content-type'));
  });

  it('a PUT gets 401 too', async () => {
    const res = await fetch(stack.graphqlUrl, { method: 'PUT', body: '{}' });
    expect(res.status).toBe(401);
  });

  it.each([
    ['a PUT (single connection mode)', { method: 'PUT', headers: { accept: 'text/event-stream' } }],
    ['a POST asking for JSON', { method: 'POST', headers: { accept: 'application/json' }, body: '{}' }],
    ['a GET asking for nothing in particular', { method: 'GET' }],
    ['a DELETE', { method: 'DELETE' }],
  ])('/graphql/stream: %s gets 401, whatever else is wrong with it', async (_name, init: RequestInit) => {
    const res = await fetch(`${stack.graphqlUrl}/stream`, init);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await res.json()) as { errors: GraphQLErrorJson[] }).errors[0].extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('/graphql/stream with a token: a PUT or a request not asking for text/event-stream gets 406', async () => {
    for (const init of [
      { method: 'PUT', headers: { ...AUTH, accept: 'text/event-stream' } },
      {
        method: 'POST',
        headers: { ...AUTH, accept: 'application/json', 'content-type': 'application/json' },
        body: '{}',
      },
    ]) {
      const res = await fetch(`${stack.graphqlUrl}/stream`, init);
      expect(res.status).toBe(406);
      expect(((await res.json()) as { errors: GraphQLErrorJson[] }).errors[0].extensions?.code).toBe('BAD_REQUEST');
    }
  });

  it('the landing page for a browser needs no token', async () => {
    const res = await fetch(stack.graphqlUrl, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
  });
});

describe('past the client quota', () => {
  it('an HTTP stream is refused 429 with retry-after, as Apollo refuses a POST', async () => {
    const limited = await startStack({ env: { CLIENT_TOKENS: TOKEN, CLIENT_RATE_LIMIT_PER_MIN: '1' } });
    try {
      const post = (accept: string) =>
        fetch(limited.graphqlUrl, {
          method: 'POST',
          headers: { ...AUTH, accept, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
      expect((await post('application/json')).status).toBe(200);
      const overHttp = await post('application/json');
      const overMultipart = await post('multipart/mixed;subscriptionSpec=1.0');
      for (const res of [overHttp, overMultipart]) {
        expect(res.status).toBe(429);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    } finally {
      await limited.close();
    }
  });
});
