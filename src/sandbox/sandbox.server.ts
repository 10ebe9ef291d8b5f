import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { CallbackSender } from './sandbox.callbacks';
import { chooseFault, parseFaultSettings, type FaultSettings } from './sandbox.faults';
import { errorAnswer, isJsonContentType, parseJson, readBody, writeAnswer, type Answer } from './sandbox.http';
import { Intakes } from './sandbox.intake';
import { RateLimiter } from './sandbox.rate-limit';
import {
  FAILED_AT_ONCE_MESSAGE,
  Ledger,
  providerName,
  scenarioFor,
  type Channel,
  type PayoutRequest,
  type SandboxRecord,
  type Scenario,
} from './sandbox.records';
import type { SandboxHandle, SandboxOptions, SandboxStats } from './sandbox.options';
import { Timers } from './sandbox.timers';
import { validateCreate, isPlainObject } from './sandbox.validation';
import { INSUFFICIENT_BALANCE_MESSAGE, Wallets } from './sandbox.wallet';

export type { FaultSettings } from './sandbox.faults';
export type { ErrorBody } from './sandbox.http';
export type { CallbackBody } from './sandbox.callbacks';
export type { PaymentType, PayoutStatus, SandboxRecord } from './sandbox.records';
export type { SandboxHandle, SandboxOptions, SandboxStats } from './sandbox.options';

const INACTIVE_KEY = 'sandbox-inactive-key';
const MAX_BODY_BYTES = 64 * 1024;
const CREATE_PATHS: ReadonlyMap<string, Channel> = new Map([
  ['/api/v1/disbursements/bank', 'bank'],
  ['/api/v1/disbursements/mobile-money', 'mobile-money'],
]);
const STATUS_PATH = '/api/v1/disbursements/check-status';
const BALANCE_PATH = '/api/v1/merchants/balance';
const WALLET_CURRENCY = 'ZMW';
const FAULTS_PATH = '/__sandbox/faults';
const JWKS_PATH = '/.well-known/jwks.json';

/** The requester's address as the provider records it, without the IPv4-mapped prefix. */
function ipAddressOf(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

function countIn(counts: Map<string, number>, referenceId: string): void {
  counts.set(referenceId, (counts.get(referenceId) ?? 0) + 1);
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** What an echoing provider puts in `message`: every request header (the API key among them) and the callback address. */
function echoOf(req: IncomingMessage, request: PayoutRequest): string {
  const headers = Object.entries(req.headers)
    .map(([name, value]) => `${name}=${Array.isArray(value) ? value.join(',') : (value ?? '')}`)
    .join(' ');
  return `echo ${headers} callback=${request.callbackUrl ?? ''}`;
}

/** An answer and how much longer than the sandbox's own latency it is held back. */
interface Reply {
  answer: Answer;
  delayMs: number;
}

/** A create lost on its way: nothing stored, and the socket held until the client gives up or the sandbox closes. */
/** What a create's record keeps of the request it came in: its address, and its headers when echoed. */
interface Arrival {
  ip: string;
  echo?: string;
}

const VANISHED: Reply = { answer: { kind: 'hang' }, delayMs: 0 };

class Sandbox {
  private readonly timers = new Timers();
  private readonly ledger = new Ledger();
  private readonly intakes = new Intakes();
  private readonly wallets: Wallets;
  private readonly limiter: RateLimiter;
  private readonly callbacks: CallbackSender;
  private readonly activeKeys: ReadonlySet<string>;
  private readonly log: Logger;
  private faults: FaultSettings = {};
  private readonly counters = { createRequests: 0, duplicateCreates: 0, statusRequests: 0, balanceRequests: 0 };
  private readonly byReferenceId = new Map<string, number>();
  private readonly duplicatesByReferenceId = new Map<string, number>();
  private readonly payoutsByReferenceId = new Map<string, number>();

  constructor(private readonly opts: SandboxOptions) {
    this.log = (opts.logger ?? pino({ enabled: false })).child({ component: 'sandbox' });
    this.limiter = new RateLimiter(opts.rateLimitPerMin);
    this.activeKeys = new Set(opts.activeKeys ?? ['sandbox-key']);
    this.wallets = new Wallets(opts.openingBalance ?? 1_000_000);
    this.callbacks = new CallbackSender({
      secret: opts.webhookSecret,
      retryBaseMs: opts.callbackRetryBaseMs ?? 1000,
      maxAttempts: opts.callbackMaxAttempts ?? 8,
      timers: this.timers,
      logger: this.log,
    });
  }

  stats(): SandboxStats {
    return {
      ...this.counters,
      createRequestsByReferenceId: Object.fromEntries(this.byReferenceId),
      duplicateCreatesByReferenceId: Object.fromEntries(this.duplicatesByReferenceId),
      payoutsByReferenceId: Object.fromEntries(this.payoutsByReferenceId),
      callbackAttempts: this.callbacks.attempts,
      callbacksDelivered: this.callbacks.delivered,
    };
  }

  records(): SandboxRecord[] {
    return this.ledger.all();
  }

  setFaults(faults: FaultSettings): void {
    this.faults = { ...faults };
  }

  async close(): Promise<void> {
    this.timers.clear();
    await this.callbacks.close();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (err) {
      // Mostly a client that went away mid-body; answer only if that is still possible.
      this.log.warn({ err }, 'sandbox request failed');
      if (!res.headersSent) writeAnswer(req, res, errorAnswer(500, 'Internal server error'), this.timers);
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const channel = CREATE_PATHS.get(url.pathname);
    let answer: Answer;
    let delayMs = 0;
    if (channel) {
      if (req.method !== 'POST') return this.reply(req, res, this.methodNotAllowed('POST'));
      ({ answer, delayMs } = await this.create(req, channel));
    } else if (url.pathname === STATUS_PATH) {
      answer = req.method === 'GET' ? this.checkStatus(req, url) : this.methodNotAllowed('GET');
    } else if (url.pathname === BALANCE_PATH) {
      answer = req.method === 'GET' ? this.balance(req) : this.methodNotAllowed('GET');
    } else if (url.pathname === FAULTS_PATH) {
      // Control route for tests driving a sandbox in another process: no API key, no latency.
      const faultAnswer = req.method === 'PUT' ? await this.putFaults(req) : this.methodNotAllowed('PUT');
      return writeAnswer(req, res, faultAnswer, this.timers);
    } else if (url.pathname === JWKS_PATH && this.opts.jwks) {
      // Stands in for an identity provider's key set in development: no API key, no latency.
      const jwksAnswer: Answer =
        req.method === 'GET' ? { kind: 'json', status: 200, body: this.opts.jwks } : this.methodNotAllowed('GET');
      return writeAnswer(req, res, jwksAnswer, this.timers);
    } else {
      return writeAnswer(req, res, errorAnswer(404, `No route for ${req.method} ${url.pathname}`), this.timers);
    }
    this.reply(req, res, answer, delayMs);
    this.log.debug({ method: req.method, path: url.pathname, answer: answer.kind }, 'sandbox request');
  }

  private reply(req: IncomingMessage, res: ServerResponse, answer: Answer, extraDelayMs = 0): void {
    const delayMs = (this.opts.latencyMs ?? 0) + extraDelayMs;
    if (delayMs > 0) this.timers.after(delayMs, () => writeAnswer(req, res, answer, this.timers));
    else writeAnswer(req, res, answer, this.timers);
  }

  private methodNotAllowed(allowed: string): Answer {
    return errorAnswer(405, `Use ${allowed} on this path`, undefined, { allow: allowed });
  }

  /** Auth then rate limit, common to every API route; answers the API key when admitted. */
  private admit(req: IncomingMessage): { key: string } | { denied: Answer } {
    const key = singleHeader(req.headers['x-api-key']);
    if (key === undefined) return { denied: errorAnswer(401, 'Missing API key') };
    if (key === INACTIVE_KEY)
      return { denied: errorAnswer(403, 'API key is inactive or not authorised for this resource') };
    if (!this.activeKeys.has(key)) return { denied: errorAnswer(401, 'Invalid API key') };
    const decision = this.limiter.take(key);
    if (!decision.allowed) {
      return {
        denied: errorAnswer(429, `Rate limit of ${this.opts.rateLimitPerMin} requests per minute exceeded`, undefined, {
          'retry-after': String(decision.retryAfterSec),
        }),
      };
    }
    return { key };
  }

  private async create(req: IncomingMessage, channel: Channel): Promise<Reply> {
    this.counters.createRequests += 1;
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === 'too-large')
      return { answer: errorAnswer(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`), delayMs: 0 };
    const parsed = parseJson(raw);
    // Counted before any check, so tests can see every attempt a client made for a reference.
    if (parsed.ok && isPlainObject(parsed.value) && typeof parsed.value.referenceId === 'string') {
      countIn(this.byReferenceId, parsed.value.referenceId);
    }
    const admitted = this.admit(req);
    if ('denied' in admitted) return { answer: admitted.denied, delayMs: 0 };
    if (!isJsonContentType(req.headers['content-type'])) {
      return { answer: errorAnswer(415, 'Content-Type must be application/json'), delayMs: 0 };
    }
    if (!parsed.ok) return { answer: errorAnswer(400, 'Request body is not valid JSON'), delayMs: 0 };
    const validated = validateCreate(channel, parsed.value, singleHeader(req.headers.callbackurl));
    if (!validated.ok) return { answer: errorAnswer(400, validated.error.message, validated.error.field), delayMs: 0 };
    const request = validated.value;
    if (this.ledger.has(admitted.key, request.referenceId) || this.intakes.has(admitted.key, request.referenceId)) {
      this.counters.duplicateCreates += 1;
      countIn(this.duplicatesByReferenceId, request.referenceId);
      // A provider that pays a repeat again takes it in as a payout of its own.
      if (this.faults.payDuplicates !== true) {
        return { answer: errorAnswer(400, 'referenceId already used', 'referenceId'), delayMs: 0 };
      }
    }
    return this.accept(req, admitted.key, request);
  }

  /** Applies the account's scenario, or at most one injected fault, to a valid new request. */
  private async accept(req: IncomingMessage, key: string, request: PayoutRequest): Promise<Reply> {
    const scenario = scenarioFor(request.accountNumber);
    const serverError = errorAnswer(500, 'Internal server error');
    if (scenario.create === 'server-error') return { answer: serverError, delayMs: 0 };
    if (scenario.create === 'vanish') return VANISHED;
    // The endings that time their answer are deterministic, so faults apply only to the other creates.
    const timed = scenario.create === 'slow' || scenario.create === 'intake';
    const faults: FaultSettings = timed ? {} : this.faults;
    const fault = chooseFault(faults);
    const faultDelayMs = faults.latencyMs ?? 0;
    if (fault === 'vanish') return VANISHED;

    const intakeMs = scenario.create === 'intake' ? (this.opts.intakeMs ?? 2500) : (faults.intakeMs ?? 0);
    // Read now: a payout taken in after its answer has no request left to read them from.
    const from: Arrival = {
      ip: ipAddressOf(req),
      echo: scenario.create === 'echo' || this.faults.echo === true ? echoOf(req, request) : undefined,
    };
    if (fault === 'error') {
      // A provider whose answer failed while its intake went on: with intakeMs set, it is taken in all the same.
      if (intakeMs > 0) {
        const taken = this.intakes.enter(key, request.referenceId);
        this.timers.after(intakeMs, () => {
          taken();
          this.take(key, request, scenario, from);
        });
      }
      return { answer: serverError, delayMs: faultDelayMs };
    }
    if (intakeMs > 0) {
      // Until then the create has only arrived: nothing stored or debited, a repeat of it refused.
      const taken = this.intakes.enter(key, request.referenceId);
      await this.timers.sleep(intakeMs);
      taken();
    }
    const record = this.take(key, request, scenario, from);

    if (timed) {
      const delayMs = scenario.create === 'slow' ? (this.opts.slowCreateMs ?? 30_000) : 0;
      return { answer: { kind: 'json', status: 200, body: record }, delayMs };
    }
    switch (fault) {
      case 'reset':
        return { answer: { kind: 'reset' }, delayMs: 0 };
      case 'hang':
        return { answer: { kind: 'hang' }, delayMs: 0 };
      case 'malformed':
        return { answer: { kind: 'malformed', body: record }, delayMs: faultDelayMs };
      case 'slowBody':
        return { answer: { kind: 'trickle', body: record }, delayMs: faultDelayMs };
      default:
        return { answer: { kind: 'json', status: 200, body: record }, delayMs: faultDelayMs };
    }
  }

  /** Stores the payout, debited (or created Failed), and starts its settling, as a real provider that took the money would. */
  private take(key: string, request: PayoutRequest, scenario: Scenario, from: Arrival): SandboxRecord {
    // A real wallet refuses what it does not hold: the payout is created Failed, nothing taken.
    const failedWith =
      scenario.create === 'failed'
        ? FAILED_AT_ONCE_MESSAGE
        : this.wallets.debit(key, request.amount)
          ? undefined
          : INSUFFICIENT_BALANCE_MESSAGE;
    const named = this.opts.providerShapes ? { ...request, paymentType: providerName(request.paymentType) } : request;
    const { id, record } = this.ledger.open(key, named, from.ip, failedWith, from.echo);
    countIn(this.payoutsByReferenceId, request.referenceId);
    const { settlesAs } = scenario;
    if (settlesAs && failedWith === undefined)
      this.timers.after(this.opts.settleMs, () => this.settle(id, key, request, settlesAs));
    return record;
  }

  private settle(id: number, key: string, request: PayoutRequest, status: 'Successful' | 'Failed'): void {
    const record = this.ledger.settle(id, status);
    if (record?.status === 'Failed') this.wallets.refund(key, request.amount);
    this.log.debug({ referenceId: request.referenceId, status }, 'payout settled');
    if (record && request.callbackUrl !== undefined && this.faults.dropCallbacks !== true)
      this.callbacks.send(request.callbackUrl, record);
  }

  private checkStatus(req: IncomingMessage, url: URL): Answer {
    this.counters.statusRequests += 1;
    const admitted = this.admit(req);
    if ('denied' in admitted) return admitted.denied;
    const referenceId = url.searchParams.get('referenceId');
    if (!referenceId) return errorAnswer(400, 'referenceId is required', 'referenceId');
    const record = this.ledger.get(admitted.key, referenceId);
    if (!record) return errorAnswer(404, `No disbursement found with referenceId ${referenceId}`);
    return { kind: 'json', status: 200, body: record };
  }

  /** The third-party mock's answer shape; the currency is the sandbox's own addition. */
  private balance(req: IncomingMessage): Answer {
    this.counters.balanceRequests += 1;
    const admitted = this.admit(req);
    if ('denied' in admitted) return admitted.denied;
    return {
      kind: 'json',
      status: 200,
      body: {
        success: true,
        message: 'Wallet balance retrieved successfully.',
        data: this.opts.providerShapes
          ? { balance: this.wallets.balance(admitted.key) }
          : { balance: this.wallets.balance(admitted.key), currency: WALLET_CURRENCY },
      },
    };
  }

  private async putFaults(req: IncomingMessage): Promise<Answer> {
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === 'too-large') return errorAnswer(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
    const parsed = parseJson(raw);
    if (!parsed.ok) return errorAnswer(400, 'Request body is not valid JSON');
    const settings = parseFaultSettings(parsed.value);
    if (!settings.ok) return errorAnswer(400, settings.error.message, settings.error.field);
    this.setFaults(settings.value);
    this.log.info({ faults: settings.value }, 'sandbox faults set');
    return { kind: 'no-content' };
  }
}

export async function startSandbox(opts: SandboxOptions): Promise<SandboxHandle> {
  const sandbox = new Sandbox(opts);
  const server = createServer((req, res) => void sandbox.handle(req, res));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl(host)}:${port}`,
    port,
    stats: () => sandbox.stats(),
    records: () => sandbox.records(),
    setFaults: (f) => sandbox.setFaults(f),
    close: () => {
      closing ??= (async () => {
        await sandbox.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Hanging and keep-alive sockets would otherwise hold close() open.
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
