import { IncomingMessage, ServerResponse } from 'node:http';
import { ClientAuth, SCOPES } from '../auth/client.auth';
import { ClientRateLimit } from '../auth/client.rate-limit';
import { badInput, forbidden, GatewayError, storeUnavailable } from '../disbursements/disbursement.errors';
import { clientRateLimited, gatewayStopping, tooManyExports } from '../graphql/request.errors';
import { HistoryEntry, Merchant, StoreUnavailableError } from '../disbursements/disbursement.ports';
import { Actor } from '../disbursements/payout.controls';
import { StatementWindow } from '../disbursements/payout.statement';
import { principalOf } from '../graphql/transports/http.request';
import { sendGraphQLError, sendGraphQLErrors, sendJson } from '../http/http.reply';
import { Logger } from '../observability/pino.logger';
import { PAYOUT_HEADER, payoutLine } from './payouts.csv';

export const PAYOUTS_CSV_PATH = '/exports/payouts.csv';

/**
 * Exports written at once, per merchant and on the whole gateway: each reads the database for as
 * long as its client downloads, so one merchant's exports must leave room for everyone else's
 * requests and for other merchants' exports. Another one is refused RATE_LIMITED, never queued.
 */
export const EXPORT_LIMITS = { perMerchant: 2, inAll: 4 };

export interface PayoutExportsOptions {
  /** The same credentials as GraphQL over HTTP: shared client tokens and JWTs. */
  auth: ClientAuth;
  /** An export counts as one operation against the caller's quota. */
  rateLimit: ClientRateLimit;
  exporter: {
    exportPayouts(merchant: Merchant, actor: Actor, window: StatementWindow): AsyncGenerator<HistoryEntry>;
  };
  logger: Logger;
  /** EXPORT_LIMITS unless a test sets others. */
  limits?: { perMerchant: number; inAll: number };
}

/** An ISO 8601 date-time with its offset: a bare local time would mean another window on every machine. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function timeOf(params: URLSearchParams, name: 'from' | 'to'): Date | GatewayError {
  const text = params.get(name);
  if (text === null || text === '')
    return badInput(`${name} is required: an ISO 8601 date-time such as 2026-01-31T00:00:00Z`, [name]);
  const time = new Date(text);
  if (!ISO_DATE_TIME.test(text) || Number.isNaN(time.getTime()))
    return badInput(`${name} is not an ISO 8601 date-time with a time zone (Z or ±hh:mm)`, [name]);
  return time;
}

function sendRefusal(res: ServerResponse, status: number, error: GatewayError): void {
  const { fields } = error.details;
  sendGraphQLErrors(res, status, [
    { message: error.message, extensions: { code: error.code, ...(fields && { fields }) } },
  ]);
}

/** `2026-01-31T00:00:00.000Z` → `20260131T000000Z`: a file name without characters a file system refuses. */
const stamp = (time: Date) => time.toISOString().replace(/[-:]|\.\d+/g, '');

/** Resolves once the socket takes more (`drain`) or is gone (`close`). */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    const go = () => {
      res.off('drain', go);
      res.off('close', go);
      resolve();
    };
    res.on('drain', go);
    res.on('close', go);
  });
}

/**
 * GET /exports/payouts.csv?from=…&to=…: the caller's merchant's payouts created in [from, to), as
 * CSV (payouts.csv.ts), with the scope payouts:export. Rows are written as the database gives them
 * and no faster than the client reads: while the socket's buffer is full, nothing more is read.
 * A client that goes away stops the reading; so does shutdown. The export's audit entry is the
 * domain's (payout.export.ts), written however the reading ends.
 */
export class PayoutExports {
  /** Exports being written, cut at shutdown: each settles once its audit entry is written. */
  private readonly open = new Map<ServerResponse, Promise<void>>();
  /** Exports being written per merchant id, counted from acceptance until their reading has ended. */
  private readonly perMerchant = new Map<string, number>();
  private closed = false;
  private readonly limits: { perMerchant: number; inAll: number };

  constructor(private readonly opts: PayoutExportsOptions) {
    this.limits = opts.limits ?? EXPORT_LIMITS;
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'Use GET on this path' }, { allow: 'GET' });
    const principal = await principalOf(this.opts.auth, req, res);
    if (!principal) return;
    if (!principal.scopes.has(SCOPES.export))
      return sendGraphQLError(
        res,
        403,
        forbidden(`This token lacks the scope ${SCOPES.export}, which the export needs`),
      );
    const retryAfter = await this.opts.rateLimit.retryAfter(principal.quotaKey);
    if (retryAfter !== undefined) return sendGraphQLError(res, 429, clientRateLimited(retryAfter));
    const from = timeOf(url.searchParams, 'from');
    if (from instanceof GatewayError) return sendRefusal(res, 400, from);
    const to = timeOf(url.searchParams, 'to');
    if (to instanceof GatewayError) return sendRefusal(res, 400, to);
    // Past close() nothing would cut it, and its audit entry could meet a closed database.
    if (this.closed) return sendGraphQLError(res, 503, gatewayStopping());
    const merchantId = principal.merchant.id;
    // Counted and taken with no await in between: two requests cannot both take the last place.
    const running = this.perMerchant.get(merchantId) ?? 0;
    if (running >= this.limits.perMerchant)
      return sendGraphQLError(res, 429, tooManyExports(this.limits.perMerchant, 'merchant'));
    if (this.open.size >= this.limits.inAll)
      return sendGraphQLError(res, 429, tooManyExports(this.limits.inAll, 'gateway'));
    let rows: AsyncGenerator<HistoryEntry>;
    try {
      rows = this.opts.exporter.exportPayouts(principal.merchant, principal.actor, { from, to });
    } catch (error) {
      if (error instanceof GatewayError) return sendRefusal(res, 400, error);
      throw error;
    }
    const written = this.write(rows, res, { from, to }, merchantId);
    this.open.set(res, written);
    this.perMerchant.set(merchantId, running + 1);
    try {
      await written;
    } finally {
      // Freed once the reading has ended: a client that went away, shutdown, or the last row.
      this.open.delete(res);
      const left = (this.perMerchant.get(merchantId) ?? 1) - 1;
      if (left > 0) this.perMerchant.set(merchantId, left);
      else this.perMerchant.delete(merchantId);
    }
  }

  /** Cuts every export still being written (shutdown), and resolves once each has written its audit entry. */
  async close(): Promise<void> {
    this.closed = true;
    const cut = [...this.open];
    for (const [res] of cut) res.destroy();
    await Promise.allSettled(cut.map(([, written]) => written));
  }

  private async write(
    rows: AsyncGenerator<HistoryEntry>,
    res: ServerResponse,
    window: StatementWindow,
    merchantId: string,
  ): Promise<void> {
    let count = 0;
    let started = false;
    let complete = false;
    try {
      // The first page is read before answering, so a database that is away gets a 503, not an empty file.
      let next: IteratorResult<HistoryEntry>;
      try {
        next = await rows.next();
      } catch (error) {
        if (error instanceof StoreUnavailableError) return sendGraphQLError(res, 503, storeUnavailable());
        throw error;
      }
      res.writeHead(200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="payouts-${stamp(window.from)}-${stamp(window.to)}.csv"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      started = true;
      res.write(PAYOUT_HEADER);
      for (; !next.done && !res.destroyed; next = await rows.next()) {
        count += 1;
        if (!res.write(payoutLine(next.value))) await writable(res);
      }
      complete = next.done === true;
      if (complete) res.end();
    } finally {
      // Stopped early (the client left, shutdown): ending the reading writes the export's audit entry.
      await rows.return(undefined);
      if (started) this.opts.logger.info({ merchant: merchantId, rows: count, complete }, 'payouts exported');
    }
  }
}
