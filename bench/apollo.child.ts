import { ApolloServer } from '@apollo/server';
import { apolloHttpServer, CreateInput, disbursementOf, StubProvider, typeDefs } from './apollo.floor';
import { failStart, serveHttpToParent } from './child.ipc';

/**
 * The Apollo floor: what the gateway's own framework costs for a payout, and nothing else.
 * node:http in, Apollo Server 5's executeHTTPGraphQLRequest over a one-mutation schema (parse,
 * validate, execute, serialise, its default plugins), one undici POST to the provider stub.
 * No validation of our own, idempotency, store, auth, logging or metrics.
 */
async function main(): Promise<void> {
  const provider = new StubProvider();
  const apollo = new ApolloServer({
    typeDefs,
    resolvers: {
      Mutation: {
        createMobileMoneyDisbursement: async (_: unknown, { input }: { input: CreateInput }) =>
          disbursementOf(await provider.create(input)),
      },
    },
  });
  await apollo.start();
  await serveHttpToParent(apolloHttpServer(apollo), async () => {
    await apollo.stop();
    await provider.close();
  });
}

main().catch(failStart);
