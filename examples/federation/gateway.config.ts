/**
 * Hive Gateway settings for a supergraph holding the payout gateway as the subgraph `payouts`
 * (docs/federation.md). `hive-gateway supergraph supergraph.graphql` reads them from this file;
 * createGatewayRuntime takes the same object.
 */
export const gatewayConfig = {
  // Each caller's own credential reaches the payout gateway, which decides the merchant and scopes.
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }: { request: Request }) => ({
      authorization: request.headers.get('authorization'),
      'x-request-id': request.headers.get('x-request-id'),
      // With TRUSTED_DOCUMENTS on the payout gateway: one of its TRUSTED_DOCUMENTS_ROUTER_TOKENS, so the
      // operations this router plans run (enforce the clients' trusted documents here, at the router).
      'x-router-token': process.env.PAYOUTS_ROUTER_TOKEN,
    }),
  },
  transportEntries: {
    payouts: {
      options: {
        // Subscriptions as server-sent events at /graphql/stream (GraphQL over SSE), carrying the same headers.
        subscriptions: { kind: 'http', location: '/graphql/stream' },
      },
    },
  },
};
