import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { getComposedSchemaFromConfig } from '@graphql-mesh/compose-cli';
import { DefaultLogger } from '@graphql-mesh/utils';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { failStart, serveHttpToParent } from './child.ipc';

/**
 * The peer: the provider's REST API wrapped as a team without this gateway would do it. An
 * OpenAPI description of the mobile money create (bench/provider.openapi.json) composed by
 * GraphQL Mesh (`@omnigraph/openapi`, `@graphql-mesh/compose-cli`) into a supergraph, served
 * by Hive Gateway's runtime over node:http, calling the stub through `@graphql-mesh/transport-rest`.
 * Its defaults otherwise (its own logging off, as the floors log nothing); no durable work.
 */
async function main(): Promise<void> {
  const upstream = new URL(process.env.BENCH_UPSTREAM_URL ?? '').origin;
  const logger = new DefaultLogger('compose');
  const supergraph = await getComposedSchemaFromConfig(
    {
      subgraphs: [
        {
          sourceHandler: loadOpenAPISubgraph('Provider', {
            source: join(__dirname, '..', '..', 'bench', 'provider.openapi.json'),
            endpoint: upstream,
            operationHeaders: { 'x-api-key': 'sandbox-key' },
          }),
        },
      ],
    },
    logger,
  );
  const gateway = createGatewayRuntime({
    supergraph,
    logging: false,
    transports: { rest: import('@graphql-mesh/transport-rest') },
  });
  const server = createServer((req, res) => {
    Promise.resolve(gateway(req, res)).catch(() => res.writeHead(502).end());
  });
  await serveHttpToParent(server, async () => {
    await gateway.dispose();
  });
}

main().catch(failStart);
