import { ApolloServer, ApolloServerPlugin, HeaderMap } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { randomUUID } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { badRequest, clientRateLimited } from '../request.errors';
import { readBody } from '../../http/http.body';
import { sendGraphQLError } from '../../http/http.reply';
import { MAX_CLIENT_TEXT_LENGTH } from '../../observability/client-text.limit';
import { withRequestId } from '../../observability/request.context';
import { contextFromHeaders, SpanKind, traced, tracingOn } from '../../observability/tracing.spans';
import { formatError } from '../gateway.errors';
import { createContext, GatewayContext, GraphQLServing } from '../gateway.context';
import { armorPlugins, requestValidationRules } from '../operations/operation.armor';
import { BODY_LIMIT, principalOf } from './http.request';
import { useGraphQLOverHttpStatus } from './http.status';
import { PARSE_OPTIONS } from '../operations/operation.parse';
import { useOperationLog } from '../operations/operation.log';
import { useOperationChecks } from '../operations/operation.checks';
import { DocumentRequest, TrustedDocuments, withTrustedQuery } from '../operations/trusted-documents.gate';

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

/** A client's own request id: a plain token short enough to go whole on every log line. */
const CLIENT_REQUEST_ID = new RegExp(`^[\\w.:-]{1,${MAX_CLIENT_TEXT_LENGTH}}$`);

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

type HttpAdmission = { body?: unknown; search?: string } | { refused: GatewayError };

/** TRUSTED_DOCUMENTS for a POST: a JSON body naming a listed id gets the listed text (anything else is Apollo's to refuse). */
function admitBody(trusted: TrustedDocuments, body: unknown, headers: IncomingHttpHeaders): HttpAdmission {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const request = body as DocumentRequest;
  const admitted = trusted.admit(request, headers);
  if ('refused' in admitted) return admitted;
  return admitted.query === undefined ? {} : { body: withTrustedQuery(request, admitted.query) };
}

/** TRUSTED_DOCUMENTS for a GET: the same, on the query string (`extensions` is JSON there). */
function admitSearch(trusted: TrustedDocuments, params: URLSearchParams, headers: IncomingHttpHeaders): HttpAdmission {
  let extensions: unknown;
  try {
    extensions = JSON.parse(params.get('extensions') ?? 'null');
  } catch {
    extensions = undefined;
  }
  const request: DocumentRequest = {
    query: params.get('query') ?? undefined,
    documentId: params.get('documentId') ?? undefined,
    extensions,
  };
  const admitted = trusted.admit(request, headers);
  if ('refused' in admitted) return admitted;
  if (admitted.query === undefined) return {};
  const resolved = withTrustedQuery(request, admitted.query);
  const next = new URLSearchParams(params);
  next.set('query', admitted.query);
  next.delete('documentId');
  if (resolved.extensions === undefined) next.delete('extensions');
  else next.set('extensions', JSON.stringify(resolved.extensions));
  return { search: `?${next.toString()}` };
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
        useOperationChecks(opts.rateLimit),
        useGraphQLOverHttpStatus(),
        ...opts.plugins,
        // Apollo would add a federated trace (ftv1) to any answer a router asks for one; tracing here is OpenTelemetry.
        ApolloServerPluginInlineTraceDisabled(),
        // No type or field sets a cache hint and nothing is cached: Apollo's default plugin would still hook every field.
        ApolloServerPluginCacheControlDisabled(),
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
    // The operation's provider calls are gathered for its one log line (operation.log.ts).
    // One span per operation when tracing is on, continuing the client's W3C traceparent; named once Apollo knows the operation.
    const serve = tracingOn()
      ? () =>
          traced('graphql', { kind: SpanKind.SERVER, parent: contextFromHeaders(req.headers) }, () =>
            this.serve(req, res, url, requestId),
          )
      : () => this.serve(req, res, url, requestId);
    return withRequestId(requestId, serve, true);
  }

  /**
   * The one request served without credentials: a browser's plain GET of the Sandbox page. Any
   * other shape (a query, a persisted-query extension, another method) needs a token first.
   */
  private isLandingPage(req: IncomingMessage, url: URL): boolean {
    return (
      this.opts.landingPage &&
      req.method === 'GET' &&
      url.search === '' &&
      /\btext\/html\b/.test(req.headers.accept ?? '')
    );
  }

  private async serve(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    const { auth, rateLimit } = this.opts;
    let context: GatewayContext | undefined;
    if (!this.isLandingPage(req, url)) {
      const principal = await principalOf(auth, req, res);
      if (!principal) return;
      const retryAfter = await rateLimit.retryAfter(principal.quotaKey);
      if (retryAfter !== undefined) return sendGraphQLError(res, 429, clientRateLimited(retryAfter));
      context = createContext(this.opts, principal, requestId);
    }
    let body: unknown;
    if (req.method === 'POST') {
      const raw = (await readBody(req, BODY_LIMIT)).toString('utf8');
      const type = req.headers['content-type'] ?? '';
      if (/^application\/(graphql-response\+)?json/i.test(type)) {
        try {
          body = JSON.parse(raw);
        } catch {
          return sendGraphQLError(res, 400, badRequest('The request body is not valid JSON'));
        }
      } else {
        body = raw;
      }
    }
    let search = url.search;
    const trusted = this.opts.trustedDocuments;
    if (trusted) {
      const admitted =
        req.method === 'POST'
          ? admitBody(trusted, body, req.headers)
          : admitSearch(trusted, url.searchParams, req.headers);
      if ('refused' in admitted) return sendGraphQLError(res, 400, admitted.refused);
      body = admitted.body ?? body;
      search = admitted.search ?? search;
    }
    const result = await this.apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method ?? 'GET', headers: headerMap(req), search, body },
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
