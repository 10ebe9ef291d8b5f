import { ApolloServer, ApolloServerPlugin, HeaderMap } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { clientKey } from '../auth/client.rate-limit';
import { readBody } from '../http/http.body';
import { sendGraphQLError } from '../http/http.reply';
import { withRequestId } from '../observability/request.context';
import { formatError } from './gateway.errors';
import { createContext, GatewayContext, GraphQLServing } from './gateway.context';
import { armorProtection, PARSE_OPTIONS } from './graphql.armor';
import { useOperationLog } from './operation-log.plugin';

const BODY_LIMIT = 64 * 1024;

export interface GraphQLHttpOptions extends GraphQLServing {
  introspection: boolean;
  landingPage: boolean;
  /** Shutdown steps Apollo runs when stopping (HTTP drain, websocket close). */
  plugins: ApolloServerPlugin<GatewayContext>[];
}

function headerMap(req: IncomingMessage): HeaderMap {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** GraphQL over HTTP through Apollo Server: credentials and quota are checked before any parsing. */
export class GraphQLHttpHandler {
  readonly apollo: ApolloServer<GatewayContext>;

  constructor(private readonly opts: GraphQLHttpOptions) {
    this.apollo = new ApolloServer<GatewayContext>({
      schema: opts.schema,
      csrfPrevention: true,
      // main.ts owns signal handling and the order of shutdown.
      stopOnTerminationSignals: false,
      allowBatchedHttpRequests: false,
      includeStacktraceInErrorResponses: false,
      introspection: opts.introspection,
      validationRules: armorProtection.validationRules,
      parseOptions: PARSE_OPTIONS,
      formatError: (formatted, error) => formatError(formatted, error, opts.logger),
      plugins: [
        ...armorProtection.plugins,
        useOperationLog(opts.logger, opts.metrics),
        ...opts.plugins,
        opts.landingPage
          ? ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false })
          : ApolloServerPluginLandingPageDisabled(),
      ],
    });
  }

  start(): Promise<void> {
    return this.apollo.start();
  }

  stop(): Promise<void> {
    return this.apollo.stop();
  }

  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const requestId = requestIdOf(req);
    res.setHeader('x-request-id', requestId);
    return withRequestId(requestId, () => this.serve(req, res, url, requestId));
  }

  private async serve(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    const { merchants, rateLimit } = this.opts;
    const isOperation = req.method === 'POST' || url.searchParams.has('query');
    let context: GatewayContext | undefined;
    if (isOperation) {
      const merchant = merchants.authenticate(req.headers.authorization);
      if (!merchant) {
        res.setHeader('www-authenticate', 'Bearer');
        return sendGraphQLError(res, 401, 'UNAUTHENTICATED', 'Missing or invalid client credentials: send Authorization: Bearer <token>');
      }
      const retryAfter = await rateLimit.retryAfter(clientKey(req.headers.authorization, req.socket.remoteAddress));
      if (retryAfter !== undefined) {
        res.setHeader('retry-after', String(retryAfter));
        return sendGraphQLError(res, 429, 'RATE_LIMITED', `Too many operations from this client; retry in ${retryAfter} s`, { retryAfter });
      }
      context = createContext(this.opts, merchant, requestId);
    }
    let body: unknown;
    if (req.method === 'POST') {
      const raw = (await readBody(req, BODY_LIMIT)).toString('utf8');
      const type = req.headers['content-type'] ?? '';
      if (/^application\/(graphql-response\+)?json/i.test(type)) {
        try {
          body = JSON.parse(raw);
        } catch {
          return sendGraphQLError(res, 400, 'BAD_REQUEST', 'The request body is not valid JSON');
        }
      } else {
        body = raw;
      }
    }
    const result = await this.apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method ?? 'GET', headers: headerMap(req), search: url.search, body },
      context: async () => {
        if (!context) throw new Error('an operation reached Apollo without credentials');
        return context;
      },
    });
    for (const [key, value] of result.headers) res.setHeader(key, value);
    res.statusCode = result.status ?? 200;
    if (result.body.kind === 'complete') {
      res.end(result.body.string);
      return;
    }
    for await (const chunk of result.body.asyncIterator) res.write(chunk);
    res.end();
  }
}
