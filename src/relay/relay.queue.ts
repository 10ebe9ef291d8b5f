import { publicFields } from '../disbursements/disbursement.fields';
import { createHash } from 'node:crypto';
import { Disbursement } from '../disbursements/disbursement.model';

/** One final record to deliver to a client's callbackUrl. Everything a replica needs to send it is here. */
export interface RelayJob {
  merchantId: string;
  referenceId: string;
  url: string;
  /** Stable across attempts and replicas, so the client can drop repeats of one delivery. */
  webhookId: string;
  /** The exact body every attempt sends. */
  body: string;
  requestId?: string;
  /** The payout's create trace (W3C traceparent), which each attempt's span links to. */
  traceparent?: string;
}

/** A job this replica holds until `leaseUntil`; after that another replica may take it. */
export interface LeasedRelayJob extends RelayJob {
  /** Attempts recorded so far. */
  attempts: number;
  /** Names this hold; a retry or finish under a lease someone else took since changes nothing. */
  lease: string;
}

/** How many of one merchant's jobs a caller may hold at once, and how many it holds now, by merchant id. */
export interface LeaseFairness {
  perMerchant: number;
  busy: ReadonlyMap<string, number>;
}

/** Up to `limit` of the candidates, taken one merchant at a time in turn; each list is in the order to send. */
export function inTurn<T>(byMerchant: readonly T[][], limit: number): T[] {
  const out: T[] = [];
  for (let round = 0; out.length < limit; round += 1) {
    let any = false;
    for (const jobs of byMerchant) {
      if (round >= jobs.length) continue;
      any = true;
      out.push(jobs[round]);
      if (out.length >= limit) break;
    }
    if (!any) break;
  }
  return out;
}

/**
 * Relay work, stored where every replica can see it (memory for one process, Redis for several),
 * so a restart or a lost replica never ends a relay early: whichever replica is alive takes it.
 */
export interface RelayQueue {
  /** Adds the job, due at `at`; a job already queued for the same payout stays as it is. */
  enqueue(job: RelayJob, at: Date): Promise<void>;
  /**
   * Takes up to `limit` jobs due at `now`, each held by this caller until `leaseUntil`: merchants in
   * turn (one job of each, then a second of each, ...), each merchant's earliest first, and no more
   * of a merchant than `fairness.perMerchant` less what the caller already holds of it (`busy`).
   */
  lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]>;
  /** Records one more attempt and makes the job due again at `at`. */
  retry(job: LeasedRelayJob, at: Date): Promise<void>;
  /** Delivered, or given up: the job is gone. */
  finish(job: LeasedRelayJob): Promise<void>;
  close(): Promise<void>;
}

/** The record as the client's endpoint receives it: the public fields, as the GraphQL type has them. */
function payload(record: Disbursement): string {
  return JSON.stringify({ type: 'disbursement.final', data: publicFields(record) });
}

/** The job for a record that just became final, when its client asked for a relay. */
export function relayJobFor(record: Disbursement): RelayJob | undefined {
  const url = record.request?.channel === 'BANK' ? record.request.callbackUrl : undefined;
  if (!url) return undefined;
  const digest = createHash('sha256')
    .update(`${record.merchantId}\u0000${record.referenceId}\u0000${record.status}`)
    .digest('hex');
  return {
    merchantId: record.merchantId,
    referenceId: record.referenceId,
    url,
    webhookId: `relay_${digest.slice(0, 32)}`,
    body: payload(record),
    requestId: record.requestId,
    ...(record.traceparent !== undefined && { traceparent: record.traceparent }),
  };
}
