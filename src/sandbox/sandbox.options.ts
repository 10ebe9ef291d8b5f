import type { Logger } from 'pino';
import type { FaultSettings } from './sandbox.faults';
import type { SandboxRecord } from './sandbox.records';

export interface SandboxOptions {
  /** 0: any free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Delay before a Pending payout settles and its callback is sent. */
  settleMs: number;
  /** Per API key; 0: unlimited. */
  rateLimitPerMin: number;
  /** Standard Webhooks secret `whsec_<base64>`; unset: callbacks unsigned. */
  webhookSecret?: string;
  /** Added to every API answer. */
  latencyMs?: number;
  /** Default ['sandbox-key']; 'sandbox-inactive-key' always answers 403, any other key 401. */
  activeKeys?: string[];
  /** Default 1000; base of the exponential backoff between callback attempts. */
  callbackRetryBaseMs?: number;
  /** Default 8. */
  callbackMaxAttempts?: number;
  /** Default 30000: how long the create of an account ending in 408 waits before answering. */
  slowCreateMs?: number;
  /** Default 2500: how long the create of an account ending in 425 waits before it is stored and answered. */
  intakeMs?: number;
  /** Default 1000000: every key's wallet starts with it; accepted payouts are debited, failed ones refunded. */
  openingBalance?: number;
  logger?: Logger;
  /**
   * Answer in the real provider's shapes where they differ from the spec's (docs/provider.md):
   * operators named `AirtelMoney`, `MtnMoney`, `ZamtelKwacha`, and a balance without currency.
   */
  providerShapes?: boolean;
  /** Public keys served at GET /.well-known/jwks.json: the development identity provider. Unset: 404. */
  jwks?: { keys: object[] };
}

export interface SandboxStats {
  /** Every POST to a create path, whatever its outcome. */
  createRequests: number;
  /** Create requests by body referenceId, when the body carried one. */
  createRequestsByReferenceId: Record<string, number>;
  /**
   * Valid creates for a referenceId the key's records already hold or the sandbox is still taking
   * in: refused, or paid again under the payDuplicates fault.
   */
  duplicateCreates: number;
  duplicateCreatesByReferenceId: Record<string, number>;
  /** Payouts stored by referenceId, failed ones too: more than 1 only when a repeat was paid again. */
  payoutsByReferenceId: Record<string, number>;
  statusRequests: number;
  balanceRequests: number;
  callbackAttempts: number;
  /** Callback attempts answered 2xx. */
  callbacksDelivered: number;
}

export interface SandboxHandle {
  /** Base address without trailing slash, e.g. http://127.0.0.1:12345. */
  url: string;
  port: number;
  stats(): SandboxStats;
  /** Every stored record, in its current state. */
  records(): SandboxRecord[];
  /** Replaces the fault settings; {} clears them. */
  setFaults(f: FaultSettings): void;
  /** Stops the server, destroys open sockets and cancels every timer. */
  close(): Promise<void>;
}
