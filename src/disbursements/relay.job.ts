import { createHash } from 'node:crypto';
import { relayUrlOf } from './channel.rules';
import { publicFields } from './disbursement.fields';
import { Disbursement, isFinal } from './disbursement.model';
import { isPublished } from './disbursement.record';

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

/** Whether a write of `before` into `after` made the payout final: a change its client sees, from a status not final. */
export function becameFinal(before: Disbursement, after: Disbursement): boolean {
  return isPublished(before, after) && !isFinal(before.status) && isFinal(after.status);
}

/** Where the client asked for the final record to be relayed, if it did. */
export function relayUrl(record: Disbursement): string | undefined {
  return record.request && relayUrlOf(record.request);
}

/** The record as the client's endpoint receives it: the public fields, as the GraphQL type has them. */
function payload(record: Disbursement): string {
  return JSON.stringify({ type: 'disbursement.final', data: publicFields(record) });
}

/**
 * The relay job a write of `before` into `after` queues, in the same atomic step as the write: one
 * when the write made the payout final and its client asked for a relay.
 */
export function relayJobOf(before: Disbursement, after: Disbursement): RelayJob | undefined {
  const url = relayUrl(after);
  if (!url || !becameFinal(before, after)) return undefined;
  const digest = createHash('sha256')
    .update(`${after.merchantId}\u0000${after.referenceId}\u0000${after.status}`)
    .digest('hex');
  return {
    merchantId: after.merchantId,
    referenceId: after.referenceId,
    url,
    webhookId: `relay_${digest.slice(0, 32)}`,
    body: payload(after),
    requestId: after.requestId,
    ...(after.traceparent !== undefined && { traceparent: after.traceparent }),
  };
}
