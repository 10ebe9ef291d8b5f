import { DocumentNode, Kind, parse } from 'graphql';
import { createHash, timingSafeEqual } from 'node:crypto';
import { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { persistedQueryNotInList, queryNotInSafelist } from '../request.errors';
import { Logger } from '../../observability/pino.logger';
import { GatewayMetrics } from '../../observability/gateway.metrics';
import { PARSE_OPTIONS } from './operation.parse';
import { TrustedOperation } from './trusted-documents.manifest';

/** The parts of a GraphQL request (HTTP body or query string, graphql-ws payload) that name its document. */
export interface DocumentRequest {
  query?: unknown;
  extensions?: unknown;
  documentId?: unknown;
}

/** Run the request as it is (`query` unset), run it with the manifest's text, or refuse it. */
export type Admission = { query?: string } | { refused: GatewayError };

export interface TrustedDocumentsOptions {
  mode: 'enforce' | 'log';
  /** TRUSTED_DOCUMENTS_ROUTER_TOKENS: a request carrying one as `x-router-token` comes from a router that enforces them itself. */
  routerTokens: readonly string[];
  /** GRAPHQL_INTROSPECTION: introspection-only documents (Apollo Sandbox, codegen) run though not listed. */
  introspection: boolean;
  logger: Logger;
  metrics: GatewayMetrics;
}

/** Verdicts and logged refusals remembered; clients send a handful of documents, so this bounds only abuse. */
const CACHE_SIZE = 500;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The id a request names its document by: GraphQL over HTTP's `documentId`, or Apollo's persisted query hash. */
export function documentIdOf(request: DocumentRequest): string | undefined {
  // GraphQL over HTTP's persisted documents write the hash as `sha256:<hex>`; manifests key it bare.
  if (typeof request.documentId === 'string' && request.documentId !== '')
    return request.documentId.replace(/^sha256:/, '');
  const persisted = isObject(request.extensions) ? request.extensions.persistedQuery : undefined;
  return isObject(persisted) && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

/** The request with the manifest's text in place of its id, so Apollo's own persisted-query cache never sees the id. */
export function withTrustedQuery<T extends DocumentRequest>(request: T, query: string): T {
  const next: T = { ...request, query };
  delete next.documentId;
  if (isObject(request.extensions)) {
    const extensions: Record<string, unknown> = { ...request.extensions };
    delete extensions.persistedQuery;
    // Absent rather than undefined: Apollo refuses an `extensions` key that is not an object.
    if (Object.keys(extensions).length > 0) next.extensions = extensions;
    else delete next.extensions;
  }
  return next;
}

/** The fields graphql-js's own introspection rule covers; `__typename` alone reads nothing of the schema. */
const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

function onlyIntrospection(document: DocumentNode): boolean {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  return (
    operations.length > 0 &&
    operations.every((operation) => {
      const fields = operation.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : ''));
      return (
        fields.some((f) => INTROSPECTION_FIELDS.has(f)) &&
        fields.every((f) => f === '__typename' || INTROSPECTION_FIELDS.has(f))
      );
    })
  );
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * TRUSTED_DOCUMENTS: an operation runs only when its id or its exact body is in the manifest.
 * Every transport asks `admit` before parsing: GraphQL over HTTP (http.transport.ts), and graphql-ws,
 * multipart and server-sent events through GraphQLOperations (OperationChecker.checkRequest), so a
 * new transport built on either gets the same rule. In `log` mode nothing is refused: what would be
 * is logged (once per distinct document) and counted (every time).
 */
export class TrustedDocuments {
  /** The manifest's operation names: the only operation labels of the metrics. */
  readonly names: readonly string[];
  private readonly byId = new Map<string, TrustedOperation>();
  private readonly bodies = new Set<string>();
  private readonly verdicts = new Map<string, boolean>();
  private readonly logged = new Set<string>();
  private readonly routerDigests: readonly Buffer[];

  constructor(
    operations: readonly TrustedOperation[],
    private readonly opts: TrustedDocumentsOptions,
  ) {
    for (const operation of operations) {
      this.byId.set(operation.id, operation);
      this.bodies.add(operation.body);
    }
    this.names = [...new Set(operations.flatMap((o) => (o.name ? [o.name] : [])))];
    this.routerDigests = opts.routerTokens.map(sha256);
  }

  /**
   * The request's document, admitted or refused. A router's (`x-router-token` one of
   * TRUSTED_DOCUMENTS_ROUTER_TOKENS) runs as it is: the operations a router plans are in no
   * manifest, and the router checked the client's own against its list.
   */
  admit(request: DocumentRequest, headers: IncomingHttpHeaders = {}): Admission {
    if (this.fromRouter(headers['x-router-token'])) return {};
    const id = documentIdOf(request);
    if (id !== undefined) {
      const listed = this.byId.get(id);
      if (listed) return { query: listed.body };
      return this.untrusted(persistedQueryNotInList(), `id:${id}`);
    }
    const { query } = request;
    // Nothing to check: the transport refuses a request without a document as it always has.
    if (typeof query !== 'string' || query === '') return {};
    if (this.trusts(query)) return {};
    return this.untrusted(queryNotInSafelist(), `body:${query}`);
  }

  /** Compared as digests, in constant time, so neither a token's length nor its bytes show in the timing. */
  private fromRouter(given: string | string[] | undefined): boolean {
    if (typeof given !== 'string' || given === '') return false;
    const presented = sha256(given);
    return this.routerDigests.some((known) => timingSafeEqual(known, presented));
  }

  /** The exact text is listed; any other runs only as introspection, decided once per distinct text. */
  private trusts(query: string): boolean {
    if (this.bodies.has(query)) return true;
    const known = this.verdicts.get(query);
    if (known !== undefined) return known;
    let verdict: boolean;
    try {
      const document = parse(query, { ...PARSE_OPTIONS, noLocation: true });
      verdict = this.opts.introspection && onlyIntrospection(document);
    } catch {
      verdict = false;
    }
    if (this.verdicts.size >= CACHE_SIZE) this.verdicts.clear();
    this.verdicts.set(query, verdict);
    return verdict;
  }

  private untrusted(error: GatewayError, key: string): Admission {
    const { mode, metrics, logger } = this.opts;
    metrics.untrustedOperations.inc({ code: error.code, action: mode === 'enforce' ? 'refused' : 'allowed' });
    if (!this.logged.has(key)) {
      if (this.logged.size >= CACHE_SIZE) this.logged.clear();
      this.logged.add(key);
      // A digest, never the text: an operation's literals may hold account numbers.
      logger.warn(
        { code: error.code, mode, document: digest(key) },
        mode === 'enforce' ? 'untrusted operation refused' : 'untrusted operation run (log mode)',
      );
    }
    return mode === 'enforce' ? { refused: error } : {};
  }
}
