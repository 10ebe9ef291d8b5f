import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestIdp } from '../support/idp';
import { CREATE_MOBILE, gql, knownSecrets, mobileInput, Stack, startStack } from '../support/stack';
import { codesOf } from '../support/streams';
import { subscribe, wsClient } from '../support/ws';

const A = {
  id: 'merchant-a',
  apiKey: 'key-subgraph-merchant-a-0123456789',
  token: 'tok_subgraph_merchant_a_0123456789',
};
const B = {
  id: 'merchant-b',
  apiKey: 'key-subgraph-merchant-b-0123456789',
  token: 'tok_subgraph_merchant_b_0123456789',
};
const ALL = 'payouts:read payouts:write beneficiaries:read beneficiaries:write';

let idp: TestIdp;
let stack: Stack;
beforeAll(async () => {
  idp = await TestIdp.start();
  const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
  writeFileSync(file, JSON.stringify([A, B].map((m) => ({ id: m.id, apiKey: m.apiKey, clientTokens: [m.token] }))));
  for (const m of [A, B]) knownSecrets.add(m.apiKey).add(m.token);
  stack = await startStack({
    env: { MERCHANTS_FILE: file, JWT_JWKS_URL: idp.jwksUrl, JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience },
    sandbox: { activeKeys: [A.apiKey, B.apiKey] },
  });
});
afterAll(async () => {
  await stack.close();
  await idp.close();
});

const bearer = async (merchant: string, scope: string) => ({
  authorization: `Bearer ${await idp.sign({ claims: { merchant_id: merchant, scope } })}`,
});

const SDL = '{ _service { sdl } }';
const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Disbursement { referenceId status amount }
    ... on Beneficiary { id name accountNumber }
  }
}`;
type Entity = Record<string, string> | null;
const entities = async (representations: unknown[], headers: Record<string, string>) =>
  gql<{ _entities: Entity[] }>(stack.graphqlUrl, ENTITIES, { representations }, headers);

describe('the gateway as a Federation 2 subgraph', () => {
  it('answers _service { sdl } linking Federation v2.3, Disbursement keyed by referenceId and Beneficiary by id', async () => {
    const res = await gql<{ _service: { sdl: string } }>(stack.graphqlUrl, SDL, {}, await bearer(A.id, 'payouts:read'));
    const { sdl } = res.data!._service;
    expect(sdl).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.3"/);
    expect(sdl).toMatch(/type Disbursement @key\(fields: "referenceId"\)/);
    expect(sdl).toMatch(/type Beneficiary @key\(fields: "id"\)/);
  });

  it('composes into a supergraph with another subgraph that references a payout by its referenceId', async () => {
    const res = await gql<{ _service: { sdl: string } }>(stack.graphqlUrl, SDL, {}, await bearer(A.id, 'payouts:read'));
    const orders = parse(`
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
      type Query { order(id: ID!): Order }
      type Order @key(fields: "id") { id: ID! payout: Disbursement }
      type Disbursement @key(fields: "referenceId", resolvable: false) { referenceId: ID! }
    `);
    const composed = composeServices([
      { name: 'payouts', typeDefs: parse(res.data!._service.sdl), url: stack.graphqlUrl },
      { name: 'orders', typeDefs: orders, url: 'http://orders.invalid/graphql' },
    ]);
    expect(composed.errors ?? []).toEqual([]);
    expect(composed.supergraphSdl).toMatch(/join__type\(graph: PAYOUTS, key: "referenceId"\)/);
  });

  it("resolves the caller's own payouts and beneficiaries, as disbursement(referenceId) and beneficiary(id) do", async () => {
    const headers = await bearer(A.id, ALL);
    const input = mobileInput();
    expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input }, headers)).errors).toBeUndefined();
    const created = await gql<{ createBeneficiary: { id: string } }>(
      stack.graphqlUrl,
      `mutation C($input: BeneficiaryInput!) { createBeneficiary(input: $input) { id } }`,
      { input: { name: 'Supplier', channel: 'MOBILE_MONEY', accountNumber: input.accountNumber } },
      headers,
    );
    const beneficiaryId = created.data!.createBeneficiary.id;
    const res = await entities(
      [
        { __typename: 'Disbursement', referenceId: input.referenceId },
        { __typename: 'Beneficiary', id: beneficiaryId },
        { __typename: 'Disbursement', referenceId: `unknown-${String(input.referenceId)}` },
      ],
      headers,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!._entities).toEqual([
      { __typename: 'Disbursement', referenceId: input.referenceId, status: expect.any(String), amount: input.amount },
      { __typename: 'Beneficiary', id: beneficiaryId, name: 'Supplier', accountNumber: input.accountNumber },
      null,
    ]);

    const other = await entities(
      [
        { __typename: 'Disbursement', referenceId: input.referenceId },
        { __typename: 'Beneficiary', id: beneficiaryId },
      ],
      await bearer(B.id, ALL),
    );
    expect(other.data).toEqual({ _entities: [null, null] });
  });

  it.each([
    ['a payout without payouts:read', 'Disbursement', { referenceId: 'any' }, 'beneficiaries:read', 'payouts:read'],
    ['a beneficiary without beneficiaries:read', 'Beneficiary', { id: 'any' }, 'payouts:read', 'beneficiaries:read'],
  ])('refuses %s: 403 FORBIDDEN, nothing read', async (_name, typename, key, scope, missing) => {
    const res = await entities([{ __typename: typename, ...key }], await bearer(A.id, scope));
    expect(res.status).toBe(403);
    expect(res.data).toBeUndefined();
    expect(res.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(res.errors?.[0].message).toContain(missing);
  });

  it("decides _entities' scopes on the variables as GraphQL coerces them: a beneficiary in a variable's default needs beneficiaries:read, over HTTP and websockets", async () => {
    const accountNumber = '260971230987';
    const created = await gql<{ createBeneficiary: { id: string } }>(
      stack.graphqlUrl,
      `mutation C($input: BeneficiaryInput!) { createBeneficiary(input: $input) { id } }`,
      { input: { name: 'Defaulted', channel: 'MOBILE_MONEY', accountNumber } },
      await bearer(A.id, ALL),
    );
    const id = created.data!.createBeneficiary.id;
    const defaulted = `query Defaulted($representations: [_Any!]! = [{ __typename: "Beneficiary", id: "${id}" }]) {
      _entities(representations: $representations) { ... on Beneficiary { id accountNumber } }
    }`;
    const headers = await bearer(A.id, 'payouts:read');
    const res = await gql(stack.graphqlUrl, defaulted, {}, headers);
    expect(res.status).toBe(403);
    expect(res.data).toBeUndefined();
    expect(res.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(res.errors?.[0].message).toContain('beneficiaries:read');
    expect(res.text).not.toContain(accountNumber);

    const client = wsClient(stack.graphqlUrl, headers);
    try {
      const overWs = subscribe(client, defaulted);
      await overWs.completed.catch(() => undefined);
      expect(overWs.events).toEqual([]);
      expect(codesOf(overWs.errors)).toEqual(['FORBIDDEN']);
    } finally {
      await client.dispose();
    }
  });

  it('takes at most 100 representations in one operation, as disbursements(referenceIds:) takes 100 ids: 101, or 102 over two aliases, refused whole, naming the field', async () => {
    const headers = await bearer(A.id, ALL);
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ __typename: 'Disbursement', referenceId: `none-${i}` }));
    const accepted = await entities(many(100), headers);
    expect(accepted.errors).toBeUndefined();
    expect(accepted.data?._entities).toHaveLength(100);

    const refused = await entities(many(101), headers);
    expect(refused.status).toBe(400);
    expect(refused.data ?? undefined).toBeUndefined();
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['representations'] });
    expect(refused.errors?.[0].message).toContain('at most 100 representations');

    const twoAliases = await gql(
      stack.graphqlUrl,
      `query Two($a: [_Any!]!, $b: [_Any!]!) {
        a: _entities(representations: $a) { __typename }
        b: _entities(representations: $b) { __typename }
      }`,
      { a: many(51), b: many(51) },
      headers,
    );
    expect(twoAliases.data ?? undefined).toBeUndefined();
    expect(twoAliases.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['representations'] });
  });

  it('refuses a representation without its key, naming the field', async () => {
    const res = await entities([{ __typename: 'Disbursement' }], await bearer(A.id, ALL));
    expect(res.data?._entities).toBeUndefined();
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['representations'] });
  });

  it('gives a router that asks for a federated trace (ftv1) none: timings stay in OpenTelemetry', async () => {
    const headers = { ...(await bearer(A.id, ALL)), 'apollo-federation-include-trace': 'ftv1' };
    const res = await entities([{ __typename: 'Disbursement', referenceId: 'none' }], headers);
    expect(res.data).toEqual({ _entities: [null] });
    expect(res.text).not.toContain('ftv1');
  });

  it('refuses _service without a token, as every operation', async () => {
    const res = await gql(stack.graphqlUrl, SDL);
    expect(res.status).toBe(401);
  });
});

describe('with GRAPHQL_INTROSPECTION=false', () => {
  it('refuses _service { sdl } as introspection, and still resolves entities', async () => {
    const token = 'tok_subgraph_closed_0123456789abcdef';
    knownSecrets.add(token);
    const closed = await startStack({ env: { CLIENT_TOKENS: token, GRAPHQL_INTROSPECTION: 'false' } });
    try {
      const headers = { authorization: `Bearer ${token}` };
      const sdl = await gql(closed.graphqlUrl, SDL, {}, headers);
      expect(sdl.errors?.[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(sdl.text).not.toContain('Disbursement');
      const res = await gql(
        closed.graphqlUrl,
        ENTITIES,
        { representations: [{ __typename: 'Disbursement', referenceId: 'none' }] },
        headers,
      );
      expect(res.data).toEqual({ _entities: [null] });
    } finally {
      await closed.close();
    }
  });
});
