import { ApolloServer } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apolloHttpServer, CreateInput, disbursementOf, StubProvider, typeDefs } from './apollo.floor';
import { failStart, serveHttpToParent } from './child.ipc';
import { DurableStore } from './durable.store';

/** The bench's one client acts for one merchant; the floor has no auth to tell it. */
const MERCHANT = 'bench-merchant';

/**
 * The durable floor: the Apollo floor plus the least durable work a create needs, and nothing
 * else. The claim row is committed before the provider stub is called, so a referenceId is sent at
 * most once; the answer is then written with one change-log row and two audit entries (requested,
 * answered; bench/durable.store.ts), in a SQLite file of its own, removed when the child exits.
 * A provider call that fails leaves the claim as it is (its outcome is unknown) and answers an error.
 */
async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-durable-'));
  process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  const store = new DurableStore(join(folder, 'durable.sqlite'));
  const provider = new StubProvider();
  const apollo = new ApolloServer({
    typeDefs,
    resolvers: {
      Mutation: {
        createMobileMoneyDisbursement: async (_: unknown, { input }: { input: CreateInput }) => {
          const requestedAt = await store.claim(MERCHANT, input);
          if (requestedAt === undefined) throw new GraphQLError(`referenceId ${input.referenceId} is already used`);
          const record = await provider.create(input);
          await store.answered(MERCHANT, input, requestedAt, record);
          return disbursementOf(record);
        },
      },
    },
  });
  await apollo.start();
  await serveHttpToParent(apolloHttpServer(apollo), async () => {
    await apollo.stop();
    await provider.close();
    store.close();
  });
}

main().catch(failStart);
