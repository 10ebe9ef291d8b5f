import { Client, createClient } from 'graphql-ws';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { SignedCallback } from './callback.signer';

/** The one client token the bench's gateways accept (token auth is on, as in production). */
export const BENCH_CLIENT_TOKEN = 'bench-client-token-0123456789abcdef';
export const AUTH_HEADERS = { authorization: `Bearer ${BENCH_CLIENT_TOKEN}` };

/** The sandbox keeps an account ending in 222 Pending and never calls back: only the bench's own callbacks arrive. */
export const NEVER_SETTLES_ACCOUNT = '260971234222';

const CREATE_MUTATION = `mutation Create($input: MobileMoneyDisbursementInput!) {
  createMobileMoneyDisbursement(input: $input) { referenceId status paymentType identifier createdAt }
}`;

export function createBody(referenceId: string, accountNumber: string): string {
  return JSON.stringify({
    query: CREATE_MUTATION,
    variables: { input: { referenceId, amount: '150.75', currency: 'ZMW', accountNumber, narration: 'Bench payout' } },
  });
}

/** A 200 that carries errors, or no record, is a failed create all the same. */
export function isFailedCreate(body: string): boolean {
  return body.includes('"errors"') || !body.includes('"createMobileMoneyDisbursement":{');
}

/**
 * Creates the payouts through the gateway, `concurrency` at a time; throws when any fails or is not PENDING
 * (the run would be meaningless: a payout created FAILED, e.g. by a wallet run dry, never turns SUCCESSFUL).
 */
export async function createPayouts(
  gatewayUrl: string,
  referenceIds: readonly string[],
  accountNumber: string,
  concurrency: number,
): Promise<void> {
  const pool = new Pool(gatewayUrl, { connections: concurrency });
  let next = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (next < referenceIds.length && failures.length === 0) {
      const referenceId = referenceIds[next++];
      const res = await pool.request({
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', ...AUTH_HEADERS },
        body: createBody(referenceId, accountNumber),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || isFailedCreate(text) || !text.includes('"status":"PENDING"'))
        failures.push(`${referenceId}: ${res.statusCode} ${text.slice(0, 200)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
  if (failures.length > 0) throw new Error(`creating bench payouts failed: ${failures[0]}`);
}

/**
 * One graphql-ws client, hence one websocket, per subscriber: what a browser tab would open.
 * Not lazy: the socket stays open after its subscription completes, as a tab's would, so
 * connection teardown never competes with the deliveries being measured.
 */
export function subscriberClient(gatewayUrl: string): Client {
  return createClient({
    url: `${gatewayUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    connectionParams: AUTH_HEADERS,
    // A failed connection also errors the subscription on it, which is where the bench counts it.
    onNonLazyError: () => undefined,
  });
}

/** Posts signed callbacks to the gateway over a keep-alive pool, as the provider would. */
export class CallbackTarget {
  private readonly pool: Pool;
  private readonly path: string;

  constructor(callbackUrl: string, connections = 32) {
    const url = new URL(callbackUrl);
    this.pool = new Pool(url.origin, { connections });
    this.path = url.pathname;
  }

  /** Answers the status code, or 0 when the request itself failed. */
  async post(callback: SignedCallback): Promise<number> {
    try {
      const res = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: callback.headers,
        body: callback.body,
      });
      await res.body.dump();
      return res.statusCode;
    } catch {
      return 0;
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export interface Delivery {
  accepted: number;
  refused: number;
  /** The rate actually achieved, from the first send to the last answer. */
  perSec: number;
}

/**
 * Sends each callback at a steady rate (not as fast as possible), so latency is measured
 * under a known load; `onSend(i)` runs just before callback i leaves.
 */
export async function deliverAtRate(
  target: CallbackTarget,
  callbacks: readonly SignedCallback[],
  perSec: number,
  onSend: (index: number) => void,
): Promise<Delivery> {
  const start = performance.now();
  const answers: Promise<number>[] = [];
  let next = 0;
  while (next < callbacks.length) {
    const due = Math.min(callbacks.length, Math.floor(((performance.now() - start) / 1000) * perSec) + 1);
    for (; next < due; next += 1) {
      onSend(next);
      answers.push(target.post(callbacks[next]));
    }
    await sleep(1);
  }
  const statuses = await Promise.all(answers);
  const accepted = statuses.filter((s) => s >= 200 && s < 300).length;
  return {
    accepted,
    refused: statuses.length - accepted,
    perSec: statuses.length / ((performance.now() - start) / 1000),
  };
}
