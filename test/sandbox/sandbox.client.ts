import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { SandboxHandle } from '../../src/sandbox/sandbox.server';

/** Shared helpers for the sandbox tests: a small HTTP client, request bodies and a callback receiver. */

export const KEY = 'sandbox-key';
export const BANK = '/api/v1/disbursements/bank';
export const MOBILE = '/api/v1/disbursements/mobile-money';
export const STATUS = '/api/v1/disbursements/check-status';
export const BALANCE = '/api/v1/merchants/balance';

export const newRef = (): string => `sbx-${randomUUID()}`;

export type Json = Record<string, unknown>;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as a JSON object; undefined when it is not one. */
  json: Json | undefined;
}

export interface CallOptions {
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Omit the x-api-key header (a given headers['x-api-key'] still wins). */
  noKey?: boolean;
  signal?: AbortSignal;
}

function asJson(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

export async function call(
  base: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(opts.noKey ? {} : { 'x-api-key': KEY }),
    ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...opts.headers,
  };
  const body =
    opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const res = await request(`${base}${path}`, { method, headers, body, signal: opts.signal });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: asJson(text) };
}

export const create = (
  base: string,
  path: string,
  body: unknown,
  opts: Omit<CallOptions, 'body'> = {},
): Promise<Reply> => call(base, 'POST', path, { ...opts, body });

export const checkStatus = (base: string, referenceId: string, opts: CallOptions = {}): Promise<Reply> =>
  call(base, 'GET', `${STATUS}?referenceId=${encodeURIComponent(referenceId)}`, opts);

/** The key's wallet balance. */
export async function balanceOf(base: string): Promise<number> {
  const { json } = await call(base, 'GET', BALANCE);
  return (json?.data as { balance: number }).balance;
}

/** A create sent without waiting for its answer; answered() tells whether the answer (or a failure) has come. */
export interface Sent {
  reply: Promise<Reply>;
  answered(): boolean;
}

export function send(base: string, path: string, body: unknown, opts: Omit<CallOptions, 'body'> = {}): Sent {
  let answered = false;
  const reply = create(base, path, body, opts);
  const note = (): void => {
    answered = true;
  };
  reply.then(note, note);
  return { reply, answered: () => answered };
}

export function bankBody(overrides: Json = {}): Json {
  return {
    referenceId: newRef(),
    amount: 150.75,
    currency: 'ZMW',
    narration: 'Supplier payout',
    accountNumber: '0012345678',
    swiftCode: 'ZNCOZMLU',
    firstName: 'Mwila',
    lastName: 'Banda',
    accountHolderName: 'Mwila Banda',
    phoneNumber: '260971234567',
    email: 'mwila@example.com',
    ...overrides,
  };
}

export function mobileBody(overrides: Json = {}): Json {
  return {
    referenceId: newRef(),
    amount: 20,
    accountNumber: '260971234567',
    currency: 'ZMW',
    narration: 'Airtime refund',
    ...overrides,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls probe until it answers something, or fails naming what it waited for. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Waits until the sandbox has received count creates for referenceId, whatever it does with them. */
export const arrived = (sandbox: SandboxHandle, referenceId: unknown, count = 1): Promise<true> =>
  waitFor(`${count} create(s) for ${String(referenceId)} to arrive`, () =>
    (sandbox.stats().createRequestsByReferenceId[String(referenceId)] ?? 0) >= count ? true : undefined,
  );

/**
 * Shows that a create vanished: once it has arrived, a check-status sent after it is answered 404
 * while the create still is not answered, and when the client gives up nothing of it was stored.
 */
export async function expectVanished(sandbox: SandboxHandle, path: string, body: Json): Promise<void> {
  const giveUp = new AbortController();
  const sent = send(sandbox.url, path, body, { signal: giveUp.signal });
  await arrived(sandbox, body.referenceId);
  expect((await checkStatus(sandbox.url, String(body.referenceId))).status).toBe(404);
  expect(sent.answered()).toBe(false);
  giveUp.abort();
  await expect(sent.reply).rejects.toThrow();
  expect((await checkStatus(sandbox.url, String(body.referenceId))).status).toBe(404);
  expect(sandbox.records().some((r) => r.referenceId === body.referenceId)).toBe(false);
}

export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Json | undefined;
}

/** A node:http server standing in for the gateway's callback endpoint. */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  private readonly plans = new Map<string, number[]>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      this.received.push({ path, headers: req.headers, rawBody, body: asJson(rawBody) });
      res.writeHead(this.plans.get(path)?.shift() ?? 200).end();
    });
  });
  private base = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** The next answers for path, in order; 200 once they are used up. */
  answerWith(path: string, statuses: number[]): void {
    this.plans.set(path, [...statuses]);
  }

  for(referenceId: string): ReceivedCallback[] {
    return this.received.filter((c) => c.body?.referenceId === referenceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
