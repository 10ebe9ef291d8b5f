import { FragmentDefinitionNode, Kind, OperationDefinitionNode, parse, print, visit } from 'graphql';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config';
import { loadManifest, parseManifest } from '../../src/graphql/operations/trusted-documents.manifest';
import { capturedLogs, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';
import { wsClient } from '../support/ws';

interface ManifestOperation {
  id: string;
  name: string;
  type: string;
  body: string;
}

/**
 * What `@apollo/generate-persisted-query-manifest` writes for examples/operations.graphql: each
 * operation with the fragments it uses, printed, its id the SHA-256 of that text.
 */
function exampleManifest(): { format: string; version: number; operations: ManifestOperation[] } {
  const document = parse(readFileSync(join(__dirname, '..', '..', 'examples', 'operations.graphql'), 'utf8'));
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  return {
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: operations.map((operation) => {
      const used = new Set<string>();
      const collect = (node: OperationDefinitionNode | FragmentDefinitionNode) =>
        visit(node, {
          FragmentSpread(spread) {
            if (used.has(spread.name.value)) return;
            used.add(spread.name.value);
            collect(fragments.get(spread.name.value)!);
          },
        });
      collect(operation);
      const body = print({ kind: Kind.DOCUMENT, definitions: [operation, ...[...used].map((n) => fragments.get(n)!)] });
      return {
        id: createHash('sha256').update(body).digest('hex'),
        name: operation.name!.value,
        type: operation.operation,
        body,
      };
    }),
  };
}

const manifest = exampleManifest();
const listed = (name: string) => manifest.operations.find((o) => o.name === name)!;
const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
const manifestPath = join(dir, 'persisted-query-manifest.json');
writeFileSync(manifestPath, JSON.stringify(manifest));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const UNLISTED = 'query MyOwnBalance { walletBalance { amount } }';
const persisted = (id: string) => ({ persistedQuery: { version: 1, sha256Hash: id } });

type Result = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };

async function post(stack: Stack, body: Record<string, unknown>): Promise<Result & { status: number }> {
  const res = await fetch(stack.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, ...((await res.json()) as Result) };
}

/** The first result of one operation over its own graphql-ws connection (for a subscription: its current state). */
async function overWs(
  stack: Stack,
  payload: { query: string; variables?: Record<string, unknown>; extensions?: Record<string, unknown> },
): Promise<Result> {
  const client = wsClient(stack.graphqlUrl);
  try {
    return await new Promise<Result>((resolve) => {
      let result: Result | undefined;
      const dispose = client.subscribe(payload, {
        next: (value) => {
          result = value as Result;
          dispose();
          resolve(result);
        },
        error: (error) =>
          resolve({ errors: Array.isArray(error) ? (error as Result['errors']) : [{ message: String(error) }] }),
        complete: () => resolve(result ?? {}),
      });
    });
  } finally {
    await client.dispose();
  }
}

/**
 * One operation over server-sent events (graphql-sse's distinct connections mode), sent as is with
 * plain fetch, so a body without `query` goes as written: its results (`next` events), read to the end.
 */
async function overSse(
  stack: Stack,
  request: { body: Record<string, unknown> } | { search: Record<string, string> },
): Promise<{ status: number; results: Result[] }> {
  const res = await fetch(
    'search' in request
      ? `${stack.graphqlUrl}/stream?${new URLSearchParams(request.search).toString()}`
      : `${stack.graphqlUrl}/stream`,
    'search' in request
      ? { headers: { accept: 'text/event-stream' } }
      : {
          method: 'POST',
          headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
          body: JSON.stringify(request.body),
        },
  );
  const text = await res.text();
  if (!res.ok) return { status: res.status, results: [JSON.parse(text) as Result] };
  const results = [...text.matchAll(/^event: next\ndata: (.*)$/gm)].map(([, data]) => JSON.parse(data) as Result);
  return { status: res.status, results };
}

const codeOf = (result: Result) => result.errors?.[0]?.extensions?.code;

async function metric(stack: Stack, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
  return Number(pattern.exec(text)?.[1] ?? 0);
}

describe('TRUSTED_DOCUMENTS (enforce, the default)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { TRUSTED_DOCUMENTS: manifestPath } });
  });
  afterAll(() => stack.close());

  it('runs the example operations by id and by exact body over HTTP', async () => {
    const input = mobileInput();
    const byId = await post(stack, {
      extensions: persisted(listed('CreateMobileMoneyDisbursement').id),
      variables: { input },
    });
    expect(byId.errors).toBeUndefined();
    expect(byId.data).toMatchObject({
      createMobileMoneyDisbursement: { referenceId: input.referenceId, status: 'PENDING' },
    });

    const byDocumentId = await post(stack, {
      documentId: listed('GetDisbursement').id,
      variables: { referenceId: input.referenceId },
    });
    expect(byDocumentId.data).toMatchObject({ disbursement: { referenceId: input.referenceId } });

    const byBody = await post(stack, {
      query: listed('GetDisbursements').body,
      variables: { referenceIds: [input.referenceId] },
    });
    expect(byBody.errors).toBeUndefined();
    expect(byBody.data).toMatchObject({ disbursements: [{ referenceId: input.referenceId }] });

    const search = new URLSearchParams({ extensions: JSON.stringify(persisted(listed('GetWalletBalance').id)) });
    const res = await fetch(`${stack.graphqlUrl}?${search.toString()}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(((await res.json()) as Result).data).toMatchObject({ walletBalance: { currency: 'ZMW' } });
  });

  it('runs the example operations by id and by exact body over websockets', async () => {
    const input = mobileInput();
    const created = await overWs(stack, {
      query: '',
      variables: { input },
      extensions: persisted(listed('CreateMobileMoneyDisbursement').id),
    });
    expect(created.errors).toBeUndefined();
    expect(created.data).toMatchObject({ createMobileMoneyDisbursement: { referenceId: input.referenceId } });
    const watched = await overWs(stack, {
      query: listed('WatchDisbursement').body,
      variables: { referenceId: input.referenceId },
    });
    expect(watched.data).toMatchObject({ disbursementUpdated: { referenceId: input.referenceId } });
    const watchedById = await overWs(stack, {
      query: '',
      variables: { referenceId: input.referenceId },
      extensions: persisted(listed('WatchDisbursement').id),
    });
    expect(watchedById.data).toMatchObject({ disbursementUpdated: { referenceId: input.referenceId } });
  });

  it('refuses an unlisted body with QUERY_NOT_IN_SAFELIST and an unknown id with PERSISTED_QUERY_NOT_IN_LIST, on both transports', async () => {
    const unknownId = createHash('sha256').update(UNLISTED).digest('hex');
    const httpBody = await post(stack, { query: UNLISTED });
    expect({ status: httpBody.status, code: codeOf(httpBody), data: httpBody.data }).toEqual({
      status: 400,
      code: 'QUERY_NOT_IN_SAFELIST',
      data: undefined,
    });
    const httpId = await post(stack, { query: UNLISTED, extensions: persisted(unknownId) });
    expect(codeOf(httpId)).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    expect(codeOf(await post(stack, { documentId: 'sha256:nope' }))).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    // A listed body with one field more is another operation.
    const widened = listed('GetWalletBalance').body.replace('amount', 'amount amount2: amount');
    expect(codeOf(await post(stack, { query: widened }))).toBe('QUERY_NOT_IN_SAFELIST');

    expect(codeOf(await overWs(stack, { query: UNLISTED }))).toBe('QUERY_NOT_IN_SAFELIST');
    expect(codeOf(await overWs(stack, { query: '', extensions: persisted(unknownId) }))).toBe(
      'PERSISTED_QUERY_NOT_IN_LIST',
    );
    expect(
      await metric(
        stack,
        /^gateway_untrusted_operations_total\{code="QUERY_NOT_IN_SAFELIST",action="refused"\} (\d+)/m,
      ),
    ).toBe(3);
  });

  it('lists only the exact text: a reformatted listed body and a bare __typename are refused, on both transports', async () => {
    const reformatted = listed('GetWalletBalance').body.replace(/\s+/g, '  ');
    expect(codeOf(await post(stack, { query: reformatted }))).toBe('QUERY_NOT_IN_SAFELIST');
    // __typename is no introspection: only __schema and __type are, and only they run unlisted.
    expect(codeOf(await post(stack, { query: '{ __typename }' }))).toBe('QUERY_NOT_IN_SAFELIST');
    expect(codeOf(await overWs(stack, { query: '{ __typename }' }))).toBe('QUERY_NOT_IN_SAFELIST');
  });

  it("runs a documentId written as GraphQL over HTTP's sha256:<hash>", async () => {
    const res = await post(stack, { documentId: `sha256:${listed('GetWalletBalance').id}` });
    expect(res.errors).toBeUndefined();
    expect(res.data).toMatchObject({ walletBalance: { currency: 'ZMW' } });
  });

  it('refuses a mutation that is not listed before anything is sent', async () => {
    const input = mobileInput();
    const res = await post(stack, {
      query:
        'mutation Sneaky($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { status } }',
      variables: { input },
    });
    expect(codeOf(res)).toBe('QUERY_NOT_IN_SAFELIST');
    const read = await post(stack, {
      documentId: listed('GetDisbursement').id,
      variables: { referenceId: input.referenceId },
    });
    expect(read.data).toEqual({ disbursement: null });
  });

  it('lets introspection through when GRAPHQL_INTROSPECTION allows it (Apollo Sandbox)', async () => {
    const res = await post(stack, { query: '{ __schema { queryType { name } } }' });
    expect(res.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  it('runs operations sent by id alone, without query, over server-sent events and multipart', async () => {
    const input = mobileInput();
    const created = await overSse(stack, {
      body: { extensions: persisted(listed('CreateMobileMoneyDisbursement').id), variables: { input } },
    });
    expect(created).toEqual({
      status: 200,
      results: [
        { data: { createMobileMoneyDisbursement: expect.objectContaining({ referenceId: input.referenceId }) } },
      ],
    });
    const read = await overSse(stack, {
      body: { documentId: listed('GetDisbursement').id, variables: { referenceId: input.referenceId } },
    });
    expect(read.results).toEqual([
      { data: { disbursement: expect.objectContaining({ referenceId: input.referenceId }) } },
    ]);
    const overGet = await overSse(stack, { search: { documentId: listed('GetWalletBalance').id } });
    expect(overGet.results).toEqual([{ data: { walletBalance: expect.objectContaining({ currency: 'ZMW' }) } }]);

    // The same by id over multipart: the first part of the subscription is the payout's current record.
    const abort = new AbortController();
    const multipart = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { accept: 'multipart/mixed;subscriptionSpec=1.0', 'content-type': 'application/json' },
      body: JSON.stringify({
        documentId: listed('WatchDisbursement').id,
        variables: { referenceId: input.referenceId },
      }),
      signal: abort.signal,
    });
    const reader = multipart.body!.getReader();
    let text = '';
    while (!text.includes('"payload"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    abort.abort();
    await reader.cancel().catch(() => undefined);
    expect(text).toContain(`{"payload":{"data":{"disbursementUpdated":{"referenceId":"${String(input.referenceId)}"`);

    const unknownId = await overSse(stack, { body: { documentId: 'sha256:nope' } });
    expect(unknownId.results.map(codeOf)).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
    const unlisted = await overSse(stack, { body: { query: UNLISTED } });
    expect(unlisted.results.map(codeOf)).toEqual(['QUERY_NOT_IN_SAFELIST']);
  });

  it("labels metrics with the manifest's operation names", async () => {
    const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(text).toMatch(
      /gateway_graphql_operations_total\{operation="CreateMobileMoneyDisbursement",type="mutation",outcome="ok"\}/,
    );
  });
});

describe('TRUSTED_DOCUMENTS_ROUTER_TOKENS, rotated as docs/operations.md says', () => {
  const NEW = `router-new-${randomUUID()}`;
  const OLD = `router-old-${randomUUID()}`;
  /** UNLISTED over HTTP, with `token` as x-router-token (or none): the code it is refused with, or 'ran'. */
  const unlistedWith = async (stack: Stack, token?: string) => {
    const res = await gql(stack.graphqlUrl, UNLISTED, {}, token === undefined ? {} : { 'x-router-token': token });
    return res.errors?.[0]?.extensions?.code ?? (res.data ? 'ran' : 'nothing');
  };
  const withTokens = (tokens: string) =>
    startStack({ env: { TRUSTED_DOCUMENTS: manifestPath, TRUSTED_DOCUMENTS_ROUTER_TOKENS: tokens } });

  it('runs what a router sends with either token while both are set, and only with the new one after', async () => {
    const both = await withTokens(`${NEW} ${OLD}`);
    try {
      expect([await unlistedWith(both, NEW), await unlistedWith(both, OLD), await unlistedWith(both)]).toEqual([
        'ran',
        'ran',
        'QUERY_NOT_IN_SAFELIST',
      ]);
    } finally {
      await both.close();
    }
    const after = await withTokens(NEW);
    try {
      expect([await unlistedWith(after, NEW), await unlistedWith(after, OLD)]).toEqual([
        'ran',
        'QUERY_NOT_IN_SAFELIST',
      ]);
    } finally {
      await after.close();
    }
  });
});

describe('TRUSTED_DOCUMENTS_MODE=log', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      env: { TRUSTED_DOCUMENTS: manifestPath, TRUSTED_DOCUMENTS_MODE: 'log', GRAPHQL_INTROSPECTION: 'false' },
    });
  });
  afterAll(() => stack.close());

  it('runs an unlisted operation on both transports, and counts and logs it', async () => {
    const http = await gql(stack.graphqlUrl, UNLISTED);
    expect(http.errors).toBeUndefined();
    expect(http.data).toMatchObject({ walletBalance: { amount: expect.any(String) } });
    const overSocket = await overWs(stack, { query: UNLISTED });
    expect(overSocket.data).toMatchObject({ walletBalance: { amount: expect.any(String) } });
    expect(
      await metric(
        stack,
        /^gateway_untrusted_operations_total\{code="QUERY_NOT_IN_SAFELIST",action="allowed"\} (\d+)/m,
      ),
    ).toBe(2);
    // Its name is not the manifest's: counted as `other`, so clients cannot grow the metric's labels.
    expect(
      await metric(stack, /^gateway_graphql_operations_total\{operation="other",type="query",outcome="ok"\} (\d+)/m),
    ).toBe(1);
    await eventually(() =>
      capturedLogs.some((l) => l.includes('untrusted operation run (log mode)')) ? true : undefined,
    );
    expect(capturedLogs.join('\n')).not.toContain('walletBalance { amount }');
  });

  it('still runs listed operations by id', async () => {
    const res = await post(stack, { documentId: listed('GetWalletBalance').id });
    expect(res.data).toMatchObject({ walletBalance: { currency: 'ZMW' } });
  });

  it('leaves introspection to GRAPHQL_INTROSPECTION (off here)', async () => {
    const res = await post(stack, { query: '{ __schema { queryType { name } } }' });
    expect(codeOf(res)).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('trusted documents manifests', () => {
  it("reads GraphQL Code Generator's persisted-documents.json", () => {
    const body = 'query GetWalletBalance { walletBalance { amount } }';
    expect(parseManifest({ abc123: body })).toEqual([{ id: 'abc123', body, name: 'GetWalletBalance' }]);
  });

  it('stops startup with one line naming TRUSTED_DOCUMENTS for a file it cannot use', () => {
    const bad = join(dir, `bad-${randomUUID()}.json`);
    writeFileSync(bad, JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 2, operations: [] }));
    expect(() => loadManifest(bad)).toThrow(ConfigError);
    expect(() => loadManifest(bad)).toThrow(/^Invalid setting TRUSTED_DOCUMENTS: /);
    expect(() => loadManifest(join(dir, 'missing.json'))).toThrow(/^Invalid setting TRUSTED_DOCUMENTS: /);
  });
});
