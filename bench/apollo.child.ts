import { ApolloServer, HeaderMap } from '@apollo/server';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { failStart, serveHttpToParent } from './child.ipc';

/**
 * The Apollo floor: what the gateway's own framework costs for a payout, and nothing else.
 * node:http in, Apollo Server 5's executeHTTPGraphQLRequest over a one-mutation schema (parse,
 * validate, execute, serialise, its default plugins), one undici POST to the provider stub.
 * No validation of our own, idempotency, store, auth, logging or metrics.
 */
const typeDefs = `#graphql
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

interface CreateInput {
  referenceId: string;
  amount: string;
  currency: string;
  accountNumber: string;
  narration?: string;
}

async function main(): Promise<void> {
  const upstream = new URL(process.env.BENCH_UPSTREAM_URL ?? '');
  const pool = new Pool(upstream.origin, { connections: 64, keepAliveTimeout: 10_000 });
  const path = '/api/v1/disbursements/mobile-money';

  const apollo = new ApolloServer({
    typeDefs,
    resolvers: {
      Mutation: {
        createMobileMoneyDisbursement: async (_: unknown, { input }: { input: CreateInput }) => {
          const answer = await pool.request({
            method: 'POST',
            path,
            headers: { 'content-type': 'application/json', 'x-api-key': 'sandbox-key' },
            body: JSON.stringify({ ...input, amount: Number(input.amount) }),
          });
          const record = (await answer.body.json()) as Record<string, unknown>;
          return {
            referenceId: record.referenceId,
            status: String(record.status).toUpperCase(),
            paymentType: 'OPERATOR_A_MONEY',
            identifier: record.identifier,
            createdAt: record.createdAt,
          };
        },
      },
    },
  });
  await apollo.start();

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
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

  const server = createServer((req, res) => {
    serve(req, res).catch(() => res.writeHead(502).end());
  });
  await serveHttpToParent(server, async () => {
    await apollo.stop();
    await pool.close();
  });
}

main().catch(failStart);
