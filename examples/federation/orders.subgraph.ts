import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';

/**
 * A second subgraph for the recipe in docs/federation.md: an order whose payout is the gateway's
 * Disbursement, referenced by its referenceId (here the order's own id, as a shop would choose it).
 * It knows nothing of payouts but the key: the router asks the payout gateway for the rest.
 */
export const ordersTypeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

  type Query {
    order(id: ID!): Order
  }

  type Order @key(fields: "id") {
    id: ID!
    payout: Disbursement
  }

  type Disbursement @key(fields: "referenceId", resolvable: false) {
    referenceId: ID!
  }
`);

const resolvers = {
  Query: { order: (_: unknown, { id }: { id: string }) => ({ id }) },
  Order: { payout: ({ id }: { id: string }) => ({ referenceId: id }) },
};

/** Starts the orders subgraph on `port` (0: any free one) and returns its URL and how to stop it. */
export async function startOrdersSubgraph(port = 4001): Promise<{ url: string; stop(): Promise<void> }> {
  const server = new ApolloServer({
    schema: buildSubgraphSchema([{ typeDefs: ordersTypeDefs, resolvers }]),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  const { url } = await startStandaloneServer(server, { listen: { port, host: '127.0.0.1' } });
  return { url, stop: () => server.stop() };
}
