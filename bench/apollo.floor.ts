import { ApolloServer, HeaderMap } from '@apollo/server';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Pool } from 'undici';

/**
 * What the Apollo floor and the durable floor share: the one-mutation schema, Apollo Server 5's
 * executeHTTPGraphQLRequest behind node:http, and the one undici POST to the provider stub.
 */
export const typeDefs = `#graphql
  type Query { ok: Boolean }
  input MobileMoneyDisbursementInput {
    referenceId: String!
    amount: String!
    currency: String!
    accountNumber: String!
    narration: String
  }
  type Disbursement { referenceId: String! status: String! paymentType: String! identifier: String createdAt: String }
  type Mutation { createMobileMoneyDisbursement(input: MobileMoneyDisbursementInput!): Disbursement! }
`;

export interface CreateInput {
  referenceId: string;
  amount: string;
  currency: string;
  accountNumber: string;
  narration?: string | null;
}

/** The provider's record as the stub answers it (bench/stub.child.ts). */
export interface StubRecord {
  referenceId: string;
  status: string;
  identifier: string;
  createdAt: string;
}

export interface Disbursement {
  referenceId: string;
  status: string;
  paymentType: string;
  identifier: string;
  createdAt: string;
}

const CREATE_PATH = '/api/v1/disbursements/mobile-money';

/** The provider stub at BENCH_UPSTREAM_URL, over one keep-alive pool. */
export class StubProvider {
  private readonly pool = new Pool(new URL(process.env.BENCH_UPSTREAM_URL ?? '').origin, {
    connections: 64,
    keepAliveTimeout: 10_000,
  });

  async create(input: CreateInput): Promise<StubRecord> {
    const answer = await this.pool.request({
      method: 'POST',
      path: CREATE_PATH,
      headers: { 'content-type': 'application/json', 'x-api-key': 'sandbox-key' },
      body: JSON.stringify({ ...input, amount: Number(input.amount) }),
    });
    return (await answer.body.json()) as StubRecord;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export const disbursementOf = (record: StubRecord): Disbursement => ({
  referenceId: record.referenceId,
  status: String(record.status).toUpperCase(),
  paymentType: 'OPERATOR_A_MONEY',
  identifier: record.identifier,
  createdAt: record.createdAt,
});

async function serve(apollo: ApolloServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: req.method ?? 'POST',
      headers,
      search: url.search,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
    },
    context: async () => ({}),
  });
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    res.end(response.body.string);
    return;
  }
  for await (const part of response.body.asyncIterator) res.write(part);
  res.end();
}

/** node:http in front of a started Apollo Server: no validation, auth, logging or metrics of our own. */
export function apolloHttpServer(apollo: ApolloServer): Server {
  return createServer((req, res) => {
    serve(apollo, req, res).catch(() => res.writeHead(502).end());
  });
}
