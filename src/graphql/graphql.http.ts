import { ApolloServer, ApolloServerPlugin, HeaderMap } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../disbursements/disbursement.errors';
import { readBody } from '../http/http.body';
import { sendGraphQLError } from '../http/http.reply';
import { withRequestId } from '../observability/request.context';
import { formatError } from './gateway.errors';
import { createContext, GatewayContext, GraphQLServing } from './gateway.context';
import { armorPlugins, PARSE_OPTIONS, requestValidationRules } from './graphql.armor';
import { useOperationLog } from './operation-log.plugin';
import { useScopes } from './operation.scopes';

const BODY_LIMIT = 64 * 1024;
const REFUSAL_STATUS: Partial<Record<string, number>> = { UNAUTHENTICATED: 401, FORBIDDEN: 403, SERVICE_UNAVAILABLE: 503 };

export interface GraphQLHttpOptions extends GraphQLServing {
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
      // Refused (or not) by requestValidationRules, as over websockets; Apollo's own rule would say so in other words.
      introspection: true,
      validationRules: requestValidationRules(opts.introspection),
      parseOptions: PARSE_OPTIONS,
      formatError: (formatted, error) => formatError(formatted, error, opts.logger),
      plugins: [
        ...armorPlugins,
        useOperationLog(opts.logger, opts.metrics),
        useScopes(),
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
    // The operation's provider calls are gathered for its one log line (operation-log.plugin.ts).
    return withRequestId(requestId, () => this.serve(req, res, url, requestId), true);
  }

  /**
   * The one request served without credentials: a browser's plain GET of the Sandbox page. Any
   * other shape (a query, a persisted-query extension, another method) needs a token first.
   */
  private isLandingPage(req: IncomingMessage, url: URL): boolean {
    return this.opts.landingPage && req.method === 'GET' && url.search === '' && /\btext\/html\b/.test(req.headers.accept ?? '');
  }

  private async serve(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    const { auth, rateLimit } = this.opts;
    let context: GatewayContext | undefined;
    if (!this.isLandingPage(req, url)) {
      const authentication = await auth.authenticate(req.headers.authorization, req.socket.remoteAddress);
      if ('refused' in authentication) {
        const { code, message } = authentication.refused;
        if (code === 'UNAUTHENTICATED') res.setHeader('www-authenticate', 'Bearer');
        return sendGraphQLError(res, REFUSAL_STATUS[code] ?? 403, code, message);
      }
      const retryAfter = await rateLimit.retryAfter(authentication.principal.quotaKey);
      if (retryAfter !== undefined) {
        res.setHeader('retry-after', String(retryAfter));
        return sendGraphQLError(res, 429, ErrorCode.RATE_LIMITED, `Too many operations from this client; retry in ${retryAfter} s`, {
          retryAfter,
        });
      }
      context = createContext(this.opts, authentication.principal, requestId);
    }
    let body: unknown;
    if (req.method === 'POST') {
      const raw = (await readBody(req, BODY_LIMIT)).toString('utf8');
      const type = req.headers['content-type'] ?? '';
      if (/^application\/(graphql-response\+)?json/i.test(type)) {
        try {
          body = JSON.parse(raw);
        } catch {
          return sendGraphQLError(res, 400, ErrorCode.BAD_REQUEST, 'The request body is not valid JSON');
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
