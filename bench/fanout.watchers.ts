import { Client } from 'graphql-ws';
import { performance } from 'node:perf_hooks';
import { kib, waitUntil } from './bench.stats';
import { SignedCallback } from './callback.signer';
import { ProcessStats, Usage } from './child.ipc';
import { CallbackTarget, deliverAtRate, Delivery, subscriberClient } from './gateway.client';

/*
 * Part 2's subscribers: opening and closing many websocket clients, and the watchers of one payout
 * each, with what they saw.
 */

const WATCH_ONE = `subscription Watch($referenceId: ID!) { disbursementUpdated(referenceId: $referenceId) { referenceId status } }`;
export const WATCH_ALL = `subscription { disbursementUpdates { referenceId status } }`;

export interface Update {
  referenceId: string;
  status: string;
}

/** Subscribers are opened `batch` at a time, each batch waited for, so loopback never sees a connection flood. */
export async function openInBatches(
  count: number,
  batch: number,
  open: (index: number) => void,
  settled: () => number,
): Promise<void> {
  for (let start = 0; start < count; start += batch) {
    const end = Math.min(count, start + batch);
    for (let i = start; i < end; i += 1) open(i);
    await waitUntil(() => settled() >= end, 30_000, 2);
  }
}

export interface PerPayoutRow {
  subscribers: number;
  connected: number;
  connectSeconds: number;
  rssPerSubscriberKb: number;
  livePerSubscriberKb: number;
  callbacksAccepted: number;
  sentPerSec: number;
  exactlyOnce: number;
  lost: number;
  duplicates: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  gateway: Usage;
  clientLoop: number;
}

/** Memory a gateway gained per subscriber, between two stats taken after a full GC. */
export function perSubscriberKb(
  before: ProcessStats,
  after: ProcessStats,
  count: number,
): { rss: number; live: number } {
  return { rss: kib(after.rssBytes - before.rssBytes) / count, live: kib(after.liveBytes - before.liveBytes) / count };
}

/** Closes every client and waits (bounded) for the server's side of each close, so memory read next is settled. */
export async function disposeAll(clients: Client[]): Promise<void> {
  const closing = clients.splice(0);
  let closed = 0;
  for (const client of closing) client.on('closed', () => (closed += 1));
  await Promise.all(closing.map(async (c) => c.dispose()));
  await waitUntil(() => closed >= closing.length, 5_000);
}

/** Subscribers to disbursementUpdated, one payout and one websocket each, and what each one received. */
export class PayoutWatchers {
  readonly clients: Client[] = [];
  readonly latencies: number[] = [];
  ready = 0;
  failed = 0;
  receivedOnce = 0;
  private readonly finals: Uint16Array;
  private readonly sentAt: Float64Array;

  constructor(
    private readonly gatewayUrl: string,
    private readonly refs: readonly string[],
  ) {
    this.finals = new Uint16Array(refs.length);
    this.sentAt = new Float64Array(refs.length);
  }

  /** Opens every subscriber; answers how long that took in seconds. */
  async open(batch: number): Promise<number> {
    const started = performance.now();
    await openInBatches(
      this.refs.length,
      batch,
      (i) => this.subscribe(i),
      () => this.ready + this.failed,
    );
    return (performance.now() - started) / 1000;
  }

  /** One final callback per payout at `perSec`, then waits (bounded) for every live subscriber to get it. */
  async deliver(target: CallbackTarget, callbacks: readonly SignedCallback[], perSec: number): Promise<Delivery> {
    const delivery = await deliverAtRate(target, callbacks, perSec, (i) => {
      this.sentAt[i] = performance.now();
    });
    await waitUntil(() => this.receivedOnce >= this.ready, 10_000);
    return delivery;
  }

  duplicates(): number {
    return this.finals.reduce((sum, n) => sum + (n > 1 ? 1 : 0), 0);
  }

  private subscribe(i: number): void {
    const client = subscriberClient(this.gatewayUrl);
    this.clients.push(client);
    let isReady = false;
    client.subscribe<{ disbursementUpdated: Update }>(
      { query: WATCH_ONE, variables: { referenceId: this.refs[i] } },
      {
        next: ({ data }) => {
          const received = performance.now();
          const status = data?.disbursementUpdated.status;
          // The first event is the payout's current state: PENDING, the subscription is live and can await SUCCESSFUL.
          if (status !== 'SUCCESSFUL') {
            if (!isReady) {
              if (status === 'PENDING') this.ready += 1;
              else this.failed += 1;
            }
            isReady = true;
            return;
          }
          this.finals[i] += 1;
          if (this.finals[i] === 1) {
            this.receivedOnce += 1;
            this.latencies.push(received - this.sentAt[i]);
          }
        },
        error: () => {
          if (!isReady) this.failed += 1;
          isReady = true;
        },
        complete: () => undefined,
      },
    );
  }
}
