import { Pool } from 'undici';
import { clientText } from '../observability/client-text.limit';
import { Logger } from '../observability/pino.logger';
import { SecretList } from '../observability/secret.redaction';
import { currentRequestId, noteProviderCall } from '../observability/request.context';
import { DisbursementRequest, ProviderBalance, ProviderRecord } from '../disbursements/disbursement.model';
import { Merchant, ProviderError, ProviderPort } from '../disbursements/disbursement.ports';
import { CHANNEL_RULES, ProviderEndpoint } from '../disbursements/channel.rules';
import { parseProviderBalance } from './provider.balance';
import { parseProviderRecord } from './provider.record';
import { SecretScrubber } from './secret.scrubber';
import { CallDeadlines } from './upstream.deadline';
import { providerMessage, retryAfterSeconds, transportFailure } from './upstream.errors';

export interface UpstreamClientOptions {
  baseUrl: string;
  timeoutMs: number;
  /** The gateway's callback address for a merchant: the provider is always pointed at the gateway. */
  callbackUrl: (merchant: Merchant) => string;
  /** Every secret the gateway holds: removed from the provider's text before it goes anywhere (the merchant's key always is). */
  secrets?: SecretList | readonly string[];
  /** Concurrent connections to the provider. */
  connections?: number;
  logger: Logger;
  /** Called after every call with its endpoint, HTTP status (or failure) and duration. */
  observe?: (endpoint: Endpoint, status: string, seconds: number) => void;
}

type Endpoint = 'create_bank' | 'create_mobile_money' | 'check_status' | 'balance';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The provider's REST API over one keep-alive pool. Creates are never retried here. */
export class UpstreamClient implements ProviderPort {
  private readonly pool: Pool;
  private readonly basePath: string;
  /** The gateway's secrets, and every merchant key this client has sent, so the longest goes first. */
  private readonly secrets: SecretList;
  private readonly scrubber: SecretScrubber;
  private readonly deadlines: CallDeadlines;

  constructor(private readonly opts: UpstreamClientOptions) {
    this.secrets = opts.secrets instanceof SecretList ? opts.secrets : new SecretList(opts.secrets);
    this.scrubber = new SecretScrubber(this.secrets);
    const url = new URL(opts.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.deadlines = new CallDeadlines(opts.timeoutMs);
    this.pool = new Pool(url.origin, {
      connections: opts.connections ?? 64,
      connect: { timeout: Math.min(opts.timeoutMs, 10_000) },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      keepAliveTimeout: 10_000,
    });
  }

  async create(merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord> {
    const callbackUrl = this.opts.callbackUrl(merchant);
    const create = createEndpoint(CHANNEL_RULES[request.channel].endpoint);
    const answer = await this.send(
      create.endpoint,
      request.referenceId,
      merchant,
      'POST',
      create.path,
      providerBody(request, create.callbackUrlInBody ? callbackUrl : undefined),
      callbackUrl,
    );
    if (answer.status >= 200 && answer.status < 300) {
      const record = this.parseRecord(merchant, answer.body);
      if (!record || record.referenceId !== request.referenceId) {
        throw new ProviderError('unknown', `provider answered ${answer.status} with an unreadable record`);
      }
      return record;
    }
    throw this.failure(answer, merchant, 'create');
  }

  async checkStatus(merchant: Merchant, referenceId: string): Promise<ProviderRecord | undefined> {
    const path = `/api/v1/disbursements/check-status?referenceId=${encodeURIComponent(referenceId)}`;
    const answer = await this.send('check_status', referenceId, merchant, 'GET', path);
    if (answer.status === 404) return undefined;
    if (answer.status >= 200 && answer.status < 300) {
      const record = this.parseRecord(merchant, answer.body);
      if (!record || record.referenceId !== referenceId) {
        throw new ProviderError(
          'unavailable',
          `provider answered ${answer.status} to a status check with an unreadable record`,
        );
      }
      return record;
    }
    const failure = this.failure(answer, merchant, 'status');
    // A status check changes nothing at the provider, so a 5xx there is simply "unavailable".
    throw failure.kind === 'server-error'
      ? new ProviderError('unavailable', failure.message, failure.details)
      : failure;
  }

  async balance(merchant: Merchant): Promise<ProviderBalance> {
    let answer: Answer;
    try {
      answer = await this.send('balance', undefined, merchant, 'GET', '/api/v1/merchants/balance');
    } catch (error) {
      // A read changes nothing at the provider, so a failure after sending is simply "unavailable".
      if (error instanceof ProviderError && error.kind === 'unknown')
        throw new ProviderError('unavailable', error.message);
      throw error;
    }
    if (answer.status >= 200 && answer.status < 300) {
      const balance = parseJsonBalance(answer.body);
      if (!balance)
        throw new ProviderError(
          'unavailable',
          `provider answered ${answer.status} to a balance request with no readable balance`,
        );
      return balance;
    }
    const failure = this.failure(answer, merchant, 'balance');
    if (failure.kind === 'server-error' || failure.kind === 'rejected') {
      throw new ProviderError(
        'unavailable',
        `provider answered ${answer.status} to a balance request: ${failure.message}`,
        failure.details,
      );
    }
    throw failure;
  }

  /** Ends every connection, and with them calls still running: by now their answers have been given up (shutdown). */
  close(): Promise<void> {
    this.deadlines.close();
    return this.pool.destroy();
  }

  /**
   * One provider call, measured and logged (on the operation's own line when one is being served);
   * the merchant key goes in a header and nowhere else.
   */
  private async send(
    endpoint: Endpoint,
    referenceId: string | undefined,
    merchant: Merchant,
    method: 'GET' | 'POST',
    path: string,
    body?: string,
    callbackUrl?: string,
  ): Promise<Answer> {
    const started = process.hrtime.bigint();
    const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': merchant.apiKey };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (callbackUrl) headers.callbackUrl = callbackUrl;
    const requestId = currentRequestId();
    if (requestId) headers['x-request-id'] = requestId;
    const deadline = this.deadlines.start();
    let status = 'error';
    try {
      const res = await this.pool.request({
        method,
        path: this.basePath + path,
        headers,
        body,
        signal: deadline.signal,
      });
      const answer = { status: res.statusCode, headers: res.headers, body: await res.body.text() };
      status = String(answer.status);
      return answer;
    } catch (error) {
      const failure = transportFailure(error);
      status = `failed_${failure.kind}`;
      throw failure;
    } finally {
      deadline.done();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.opts.observe?.(endpoint, status, seconds);
      // A callback's referenceId is checked here before any validation has seen it.
      const call = { endpoint, referenceId: clientText(referenceId), status, durationMs: Math.round(seconds * 1000) };
      // Under a GraphQL operation the call goes on the operation's line: one line per operation at info.
      if (noteProviderCall(call)) this.opts.logger.debug({ ...call, merchant: merchant.id }, 'provider call');
      else this.opts.logger.info({ ...call, merchant: merchant.id }, 'provider call');
    }
  }

  /** A record from a 2xx answer, scrubbed at the door. */
  private parseRecord(merchant: Merchant, body: string): ProviderRecord | undefined {
    const record = parseJson(body);
    return record && this.scrubberFor(merchant).record(record);
  }

  private scrubberFor(merchant: Merchant): SecretScrubber {
    // Already there when the gateway runs (its list has every merchant key); an addition is a Set lookup otherwise.
    this.secrets.add([merchant.apiKey]);
    return this.scrubber;
  }

  private failure(answer: Answer, merchant: Merchant, call: string): ProviderError {
    const scrubber = this.scrubberFor(merchant);
    const { message, field } = providerMessage(answer.body, (text) => scrubber.text(text));
    const status = answer.status;
    if (status === 401 || status === 403)
      return new ProviderError('auth', `provider refused the merchant key on ${call} (${status})`, { status });
    if (status === 429)
      return new ProviderError('rate-limited', message, {
        status,
        retryAfter: retryAfterSeconds(answer.headers['retry-after']),
      });
    // 502 and 504 are a proxy's word that the provider did not answer it: a create may still be on its way in.
    if (call === 'create' && (status === 502 || status === 504))
      return new ProviderError('unknown', `provider answered ${status}: ${message}`, { status });
    if (status >= 500) return new ProviderError('server-error', `provider answered ${status}: ${message}`, { status });
    if (status >= 400) return new ProviderError('rejected', message, { status, field });
    // A 1xx/3xx to an API call: we cannot tell what happened.
    return new ProviderError('server-error', `provider answered ${status}`, { status });
  }
}

function parseJsonBalance(body: string): ProviderBalance | undefined {
  try {
    return parseProviderBalance(JSON.parse(body));
  } catch {
    return undefined;
  }
}

function parseJson(body: string): ProviderRecord | undefined {
  try {
    return parseProviderRecord(JSON.parse(body));
  } catch {
    return undefined;
  }
}

interface CreateEndpoint {
  path: string;
  endpoint: Endpoint;
  /** The bank create takes the callbackUrl in its body too; the mobile money one in the header alone. */
  callbackUrlInBody: boolean;
}

function createEndpoint(kind: ProviderEndpoint): CreateEndpoint {
  switch (kind) {
    case 'BANK':
      return { path: '/api/v1/disbursements/bank', endpoint: 'create_bank', callbackUrlInBody: true };
    case 'MOBILE_MONEY':
      return { path: '/api/v1/disbursements/mobile-money', endpoint: 'create_mobile_money', callbackUrlInBody: false };
    default:
      return kind satisfies never;
  }
}

/** The spec's request body; the amount goes out as a JSON number written from its exact decimal text. */
function providerBody(request: DisbursementRequest, callbackUrl: string | undefined): string {
  // sendAt is the gateway's own: the provider is only called at that time.
  const { channel: _channel, amount, sendAt: _sendAt, ...fields } = request;
  const body: Record<string, string> = callbackUrl === undefined ? fields : { ...fields, callbackUrl };
  const json = JSON.stringify(body);
  return `{"amount":${amount},${json.slice(1)}`;
}
