import {
  buildSchema,
  getNamedType,
  getNullableType,
  GraphQLEnumType,
  GraphQLField,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInputType,
  GraphQLList,
  GraphQLString,
  isLeafType,
  isNonNullType,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { describeEachEngine } from '../support/modes';
import {
  bankInput,
  CREATE_BANK,
  CREATE_MOBILE,
  gql,
  knownSecrets,
  mobileInput,
  Stack,
  startStack,
} from '../support/stack';

const TOKEN = 'tok_corpus_client_0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { CLIENT_TOKENS: TOKEN, CLIENT_RATE_LIMIT_PER_MIN: '0' } });
  knownSecrets.add(TOKEN);
});
afterAll(() => stack.close());

/** After every hostile case: nothing reached the provider and a normal payout still works. */
let createsBefore = 0;
beforeEach(() => {
  createsBefore = stack.sandbox.stats().createRequests;
});
afterEach(async () => {
  expect(stack.sandbox.stats().createRequests).toBe(createsBefore);
  const normal = await gql<{ __typename: string }>(stack.graphqlUrl, '{ __typename }', {}, AUTH);
  expect(normal.data?.__typename).toBe('Query');
});

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(stack.graphqlUrl, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  let json: { errors?: { message: string; extensions?: { code?: string } }[] } | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, code: json?.errors?.[0]?.extensions?.code, text };
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_ONLY = 'application/json';
const postDocument = (query: string, accept = GRAPHQL_RESPONSE) => post(JSON.stringify({ query }), { accept });

const mutation = JSON.stringify({ query: CREATE_MOBILE, variables: { input: mobileInput() } });
const aliasBomb = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: disbursement(referenceId: "x") { referenceId }`).join(' ')} }`;
const deep = `{ __schema { types { fields { type { ${'ofType { '.repeat(30)}name${' }'.repeat(30)} } } } } }`;
const wide = `{ ${Array.from({ length: 3000 }, () => '__typename').join(' ')} }`;
const fragmentBomb = `query { ...F0 } ${Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { __typename ${i < 29 ? `...F${i + 1} ...F${i + 1}` : ''} }`).join(' ')}`;
const directives = `{ __typename ${Array.from({ length: 100 }, () => '@include(if: true)').join(' ')} }`;
const cyclicFragments = `query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }`;

describe('hostile HTTP requests', () => {
  it.each([
    ['malformed JSON', () => post('{"query": "{ __typename }"', {}), 400, 'BAD_REQUEST'],
    ['text/plain body (CSRF)', () => post(mutation, { 'content-type': 'text/plain' }), 400, 'BAD_REQUEST'],
    [
      'form-encoded body',
      () => post('query=mutation', { 'content-type': 'application/x-www-form-urlencoded' }),
      400,
      'BAD_REQUEST',
    ],
    [
      'a 1 MB body',
      () => post(JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(1_000_000) })),
      413,
      'BAD_REQUEST',
    ],
    [
      'a batched array of operations',
      () => post(JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }])),
      400,
      undefined,
    ],
    ['an alias bomb', () => postDocument(aliasBomb), 400, 'GRAPHQL_VALIDATION_FAILED'],
    ['a deep introspection query', () => postDocument(deep), 400, 'GRAPHQL_VALIDATION_FAILED'],
    ['a wide query past the token limit', () => postDocument(wide), 400, 'GRAPHQL_PARSE_FAILED'],
    ['a fragment bomb', () => postDocument(fragmentBomb), 400, 'GRAPHQL_VALIDATION_FAILED'],
    ['cyclic fragments', () => postDocument(cyclicFragments), 400, 'GRAPHQL_VALIDATION_FAILED'],
    ['a directive flood', () => postDocument(directives), 400, 'GRAPHQL_VALIDATION_FAILED'],
    // GraphQL over HTTP: the same refusals answer 200 with `errors` to a client accepting only application/json.
    ['an alias bomb, asking for JSON', () => postDocument(aliasBomb, JSON_ONLY), 200, 'GRAPHQL_VALIDATION_FAILED'],
    ['a wide query, asking for JSON', () => postDocument(wide, JSON_ONLY), 200, 'GRAPHQL_PARSE_FAILED'],
    [
      'a mutation over GET',
      () =>
        fetch(`${stack.graphqlUrl}?query=${encodeURIComponent('mutation { __typename }')}`, {
          headers: { ...AUTH, 'apollo-require-preflight': 'true' },
        }).then(async (r) => ({ status: r.status, code: undefined, text: await r.text() })),
      405,
      undefined,
    ],
    ['no query at all', () => post(JSON.stringify({ variables: {} })), 400, 'BAD_REQUEST'],
    ['a query that is not a string', () => post(JSON.stringify({ query: { evil: true } })), 400, 'BAD_REQUEST'],
    ['missing token', () => post(mutation, { authorization: '' }), 401, 'UNAUTHENTICATED'],
    [
      'wrong token',
      () => post(mutation, { authorization: 'Bearer tok_wrong_0000000000000000' }),
      401,
      'UNAUTHENTICATED',
    ],
    ['token without the Bearer scheme', () => post(mutation, { authorization: TOKEN }), 401, 'UNAUTHENTICATED'],
  ])('%s gets a clear 4xx with its code', async (_name, send, status, code) => {
    const res = await send();
    expect(res.status).toBe(status);
    if (code) expect(res.code).toBe(code);
    expect(res.text).not.toMatch(/\bat [\w.]+ \(|node_modules|stacktrace/i);
  });
});

const hostileStrings = [
  "'; DROP TABLE payouts; --",
  '<script>alert(1)</script>',
  '${jndi:ldap://x/a}',
  '{"$gt": ""}',
  '\u202Eevil\u0000',
  '💸'.repeat(300),
];

describe('hostile values in every input field', () => {
  const formatted: [string, string][] = [
    ['mobile', 'amount'],
    ['mobile', 'currency'],
    ['mobile', 'accountNumber'],
    ['bank', 'amount'],
    ['bank', 'currency'],
    ['bank', 'accountNumber'],
    ['bank', 'swiftCode'],
    ['bank', 'phoneNumber'],
    ['bank', 'email'],
    ['bank', 'callbackUrl'],
  ];
  it.each(formatted.flatMap(([channel, field]) => hostileStrings.map((v) => [channel, field, v] as const)))(
    '%s %s = %j is refused naming the field',
    async (channel, field, value) => {
      const query = channel === 'bank' ? CREATE_BANK : CREATE_MOBILE;
      const input = channel === 'bank' ? bankInput({ [field]: value }) : mobileInput({ [field]: value });
      const res = await gql(stack.graphqlUrl, query, { input }, AUTH);
      expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0].extensions?.fields).toEqual([`input.${field}`]);
    },
  );

  it.each([
    ['a number for a string', { referenceId: 12345 }, 'input.referenceId'],
    ['an object for the amount', { amount: { $gt: 0 } }, 'input.amount'],
    ['an array for the currency', { currency: ['ZMW'] }, 'input.currency'],
    ['null for a required field', { accountNumber: null }, 'input.accountNumber'],
    ['a control character in the referenceId', { referenceId: 'abc\u0000' }, 'input.referenceId'],
    ['a referenceId of 10,000 characters', { referenceId: 'r'.repeat(10_000) }, 'input.referenceId'],
    ['a narration of 300 emoji', { narration: '💸'.repeat(300) }, 'input.narration'],
    ['a right-to-left override in the narration', { narration: 'pay \u202E evil' }, 'input.narration'],
    ['an amount with a leading space', { amount: ' 1' }, 'input.amount'],
    ['an amount with a trailing newline', { amount: '1\n' }, 'input.amount'],
    ['an amount after a byte-order mark', { amount: '\uFEFF1' }, 'input.amount'],
    ['an amount with a trailing tab', { amount: '150.75\t' }, 'input.amount'],
    ['an amount after a no-break space', { amount: '\u00A0150' }, 'input.amount'],
    ['an Arabic letter mark in the narration', { narration: 'pay\u061Cout' }, 'input.narration'],
    ['a zero-width space in the narration', { narration: 'pay\u200Bout' }, 'input.narration'],
    ['a byte-order mark in the narration', { narration: '\uFEFFpayout' }, 'input.narration'],
    ['a soft hyphen in the narration', { narration: 'pay\u00ADout' }, 'input.narration'],
    ['tag characters in the narration', { narration: 'payout\u{E0041}\u{E007F}' }, 'input.narration'],
    ['a lone high surrogate in the narration', { narration: 'pay\uD800out' }, 'input.narration'],
    ['a lone low surrogate in the narration', { narration: 'pay\uDC00' }, 'input.narration'],
  ])('%s is refused naming the field', async (_name, overrides, field) => {
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput(overrides) }, AUTH);
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].extensions?.fields).toEqual([field]);
  });
});

describe('invisible characters in every free-text field of a bank payout', () => {
  it.each(
    ['narration', 'firstName', 'lastName', 'accountHolderName'].flatMap((field) =>
      (
        [
          ['U+200B zero-width space', '\u200B'],
          ['U+2060 word joiner', '\u2060'],
          ['U+FEFF byte-order mark', '\uFEFF'],
          ['U+00AD soft hyphen', '\u00AD'],
          ['U+E0020 tag space', '\u{E0020}'],
          ['a lone surrogate', '\uDBFF'],
        ] as const
      ).map(([name, c]) => [field, name, c] as const),
    ),
  )('%s with a %s is refused naming the field', async (field, _name, character) => {
    const res = await gql(
      stack.graphqlUrl,
      CREATE_BANK,
      { input: bankInput({ [field]: `Mwila${character}Banda` }) },
      AUTH,
    );
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].extensions?.fields).toEqual([`input.${field}`]);
  });
});

describe('amounts given exactly are accepted', () => {
  afterEach(() => {
    // These cases do send one payout each: undo the corpus-wide "nothing sent" expectation.
    createsBefore = stack.sandbox.stats().createRequests;
  });
  it.each([['150.75'], [150.75], [10]])('amount %j', async (amount) => {
    const res = await gql<{ createMobileMoneyDisbursement: { amount: string } }>(
      stack.graphqlUrl,
      CREATE_MOBILE,
      { input: mobileInput({ amount }) },
      AUTH,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.createMobileMoneyDisbursement.amount).toBe(String(amount));
  });
});

describe('free text is data, never code', () => {
  afterEach(() => {
    // These cases do send one payout each: undo the corpus-wide "nothing sent" expectation.
    createsBefore = stack.sandbox.stats().createRequests;
  });
  it.each(["'; DROP TABLE payouts; --", '<script>alert(1)</script>', '${jndi:ldap://x/a}', 'Zoë Ñandú 张伟'])(
    'narration and names %j reach the provider verbatim',
    async (value) => {
      const input = bankInput({ narration: value, firstName: value, lastName: value, accountHolderName: value });
      const res = await gql<{ createBankDisbursement: { narration: string } }>(
        stack.graphqlUrl,
        CREATE_BANK,
        { input },
        AUTH,
      );
      expect(res.errors).toBeUndefined();
      expect(res.data?.createBankDisbursement.narration).toBe(value);
      expect(stack.sandbox.records().find((r) => r.referenceId === input.referenceId)?.narration).toBe(value);
    },
  );
});

describe('hostile websockets', () => {
  const wsUrl = () => stack.graphqlUrl.replace(/^http/, 'ws');
  const closeCode = (socket: WebSocket) =>
    new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));

  it('closes a socket that never sends connection_init (4408)', async () => {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    expect(await closeCode(socket)).toBe(4408);
  });

  it('closes a connection with a bad token with 4403 before any subscription runs', async () => {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer nope' } })),
    );
    expect(await closeCode(socket)).toBe(4403);
  });

  it('closes a connection with an oversized message (1009)', async () => {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    socket.on('open', () => socket.send('x'.repeat(200_000)));
    expect(await closeCode(socket)).toBe(1009);
  });

  it('refuses an unknown subprotocol', async () => {
    const socket = new WebSocket(wsUrl(), 'not-graphql');
    socket.on('error', () => undefined);
    expect([1002, 1006]).toContain(await closeCode(socket));
  });
});

describe('a flood from one client', () => {
  it('answers RATE_LIMITED with retryAfter past the quota, while other clients are served', async () => {
    const other = 'tok_other_client_0123456789abcdef';
    const limited = await startStack({ env: { CLIENT_TOKENS: `${TOKEN},${other}`, CLIENT_RATE_LIMIT_PER_MIN: '20' } });
    knownSecrets.add(other);
    try {
      const answers = await Promise.all(
        Array.from({ length: 60 }, () => gql(limited.graphqlUrl, '{ __typename }', {}, AUTH)),
      );
      const refused = answers.filter((a) => a.errors?.[0].extensions?.code === 'RATE_LIMITED');
      expect(answers.filter((a) => a.data).length).toBe(20);
      expect(refused).toHaveLength(40);
      expect(refused[0].status).toBe(429);
      expect(refused[0].errors?.[0].extensions?.retryAfter).toEqual(expect.any(Number));
      const fine = await gql(limited.graphqlUrl, '{ __typename }', {}, { authorization: `Bearer ${other}` });
      expect(fine.data).toEqual({ __typename: 'Query' });
    } finally {
      await limited.close();
    }
  });
});

describe('what Apollo Sandbox needs still works', () => {
  it('answers the standard introspection query', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const res = await gql<{ __schema: { types: unknown[] } }>(stack.graphqlUrl, getIntrospectionQuery(), {}, AUTH);
    expect(res.errors).toBeUndefined();
    expect(res.data?.__schema.types.length).toBeGreaterThan(10);
  });
});

describe('callbackUrls aimed inside the network (SSRF)', () => {
  it.each([
    'http://127.0.0.1:47999/',
    'http://localhost/metrics',
    'http://0.0.0.0:4000/metrics',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://017700000001/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://192.168.0.1/',
    'http://metadata.localhost/',
  ])('callbackUrl %s is refused naming input.callbackUrl', async (callbackUrl) => {
    const res = await gql(stack.graphqlUrl, CREATE_BANK, { input: bankInput({ callbackUrl }) }, AUTH);
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].extensions?.fields).toEqual(['input.callbackUrl']);
  });
});

/** Every String or ID a client can send, found by walking schema.graphql: a root field, its argument, the input path. */
interface TextArgument {
  operation: 'query' | 'mutation' | 'subscription';
  field: GraphQLField<unknown, unknown>;
  argument: string;
  /** Input fields and list indexes below the argument. */
  path: string[];
}

/** The paths below `type` that end at a String or an ID (a list's item as its index 0). */
function textPaths(type: GraphQLInputType): string[][] {
  const named = getNullableType(type);
  if (named instanceof GraphQLList) return textPaths(named.ofType).map((p) => ['0', ...p]);
  if (named instanceof GraphQLInputObjectType)
    return Object.values(named.getFields()).flatMap((f) => textPaths(f.type).map((p) => [f.name, ...p]));
  return named === GraphQLString || named === GraphQLID ? [[]] : [];
}

/** A value of `type` the schema accepts, with `nul` at `path` (when given): only what is required, besides. */
function sampleOf(type: GraphQLInputType, path?: string[]): unknown {
  const named = getNullableType(type);
  if (path?.length === 0) return 'a\u0000b';
  if (named instanceof GraphQLList) return [sampleOf(named.ofType, path?.slice(1))];
  if (named instanceof GraphQLInputObjectType)
    return Object.fromEntries(
      Object.values(named.getFields())
        .filter((f) => f.name === path?.[0] || (isNonNullType(f.type) && f.defaultValue === undefined))
        .map((f) => [f.name, sampleOf(f.type, f.name === path?.[0] ? path.slice(1) : undefined)]),
    );
  if (named instanceof GraphQLEnumType) return named.getValues()[0].value;
  const samples: Record<string, unknown> = { Int: 1, Float: 1, Boolean: false, Decimal: '1.00' };
  return samples[named.name] ?? (named.name === 'DateTimeISO' ? '2026-01-01T00:00:00Z' : 'x');
}

function textArguments(): TextArgument[] {
  const schema = buildSchema(readFileSync(join(__dirname, '..', '..', 'schema.graphql'), 'utf8'));
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const;
  return roots.flatMap(([operation, root]) =>
    Object.values(root?.getFields() ?? {}).flatMap((field) =>
      field.args.flatMap((arg) => textPaths(arg.type).map((path) => ({ operation, field, argument: arg.name, path }))),
    ),
  );
}

/** The operation sending `nul` in one argument's path by variables, every required argument given a fine value. */
function operationOf({ operation, field, argument, path }: TextArgument) {
  const args = field.args.filter((a) => a.name === argument || (isNonNullType(a.type) && a.defaultValue === undefined));
  const definitions = args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const uses = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';
  return {
    query: `${operation} Nul(${definitions}) { ${field.name}(${uses}) ${selection} }`,
    variables: Object.fromEntries(args.map((a) => [a.name, sampleOf(a.type, a.name === argument ? path : undefined)])),
  };
}

const TEXT_ARGUMENTS = textArguments();

describeEachEngine('a NUL character in any text argument', (env) => {
  let own: Stack;
  beforeAll(async () => {
    own = await startStack({ env: { ...env(), CLIENT_TOKENS: TOKEN, CLIENT_RATE_LIMIT_PER_MIN: '0' } });
  });
  afterAll(() => own.close());

  it('covers every String and ID argument of the schema, input fields and lists included', () => {
    const named = TEXT_ARGUMENTS.map((t) => [t.field.name, t.argument, ...t.path].join('.'));
    expect(named).toEqual(
      expect.arrayContaining(['disbursement.referenceId', 'createBankDisbursements.inputs.0.narration']),
    );
    expect(new Set(TEXT_ARGUMENTS.map((t) => t.operation))).toEqual(new Set(['query', 'mutation', 'subscription']));
  });

  it.each(TEXT_ARGUMENTS.map((t) => [[t.field.name, t.argument, ...t.path].join('.'), t] as const))(
    '%s: BAD_USER_INPUT naming the field, and nothing sent',
    async (_name, text) => {
      const creates = own.sandbox.stats().createRequests;
      const { query, variables } = operationOf(text);
      // Subscriptions over server-sent events: the refusal is the stream's one event, and it ends.
      const stream = text.operation === 'subscription';
      const res = await fetch(`${own.graphqlUrl}${stream ? '/stream' : ''}`, {
        method: 'POST',
        headers: {
          ...AUTH,
          'content-type': 'application/json',
          accept: stream ? 'text/event-stream' : 'application/json',
        },
        body: JSON.stringify({ query, variables }),
      });
      const answer = await res.text();
      const body = JSON.parse(stream ? (/^data: (.*)$/m.exec(answer)?.[1] ?? '') : answer) as {
        errors?: { extensions?: Record<string, unknown> }[];
      };
      expect(res.status).toBe(stream ? 200 : 400);
      expect(body.errors?.[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: [[text.argument, ...text.path].join('.')],
      });
      expect(own.sandbox.stats().createRequests).toBe(creates);
    },
  );

  it.each([
    ['an argument', '{ disbursement(referenceId: "a\\u0000b") { referenceId } }', 'referenceId'],
    ['a list item', '{ disbursements(referenceIds: ["a", "b\\u0000"]) { referenceId } }', 'referenceIds.1'],
    [
      'an input field',
      'mutation { createMobileMoneyDisbursement(input: { referenceId: "r-nul", amount: "1.00", accountNumber: "260971234567", currency: "ZMW", narration: "x\\u0000" }) { status } }',
      'input.narration',
    ],
  ])('written in the document, in %s: BAD_USER_INPUT naming it', async (_name, query, field) => {
    const res = await gql(own.graphqlUrl, query, {}, AUTH);
    expect(res.status).toBe(400);
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: [field] });
  });
});
