import DataLoader from 'dataloader';
import { GraphQLSchema } from 'graphql';
import { ClientAuth, Principal } from '../auth/client.auth';
import { ClientRateLimit } from '../auth/client.rate-limit';
import { MerchantAccount } from '../auth/merchant.registry';
import { TrustedDocuments } from './operations/trusted-documents.gate';
import { Disbursement } from '../disbursements/disbursement.model';
import { OnListening } from '../disbursements/disbursement.ports';
import { DisbursementService } from '../disbursements/disbursement.service';
import { Actor } from '../disbursements/payout.controls';
import { Logger } from '../observability/pino.logger';
import { GatewayMetrics } from '../observability/gateway.metrics';

/** What serving GraphQL needs, over HTTP and over websockets alike. */
export interface GraphQLServing {
  schema: GraphQLSchema;
  service: DisbursementService;
  auth: ClientAuth;
  rateLimit: ClientRateLimit;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Schema introspection (GRAPHQL_INTROSPECTION), refused by the same rule on both transports. */
  introspection: boolean;
  /** TRUSTED_DOCUMENTS: which operations may run; every transport asks it before parsing (trusted-documents.gate.ts). */
  trustedDocuments?: TrustedDocuments;
}

export interface GatewayContext {
  /** The one entry to the domain. */
  service: DisbursementService;
  merchant: MerchantAccount;
  /** Who is acting (payout controls, history). */
  actor: Actor;
  /** What the caller's credential allows (operation.scopes.ts checks it before execution). */
  scopes: ReadonlySet<string>;
  /** Per operation, so a long-lived subscription never reads a cached, stale record. */
  loader: DataLoader<string, Disbursement | undefined>;
  requestId: string;
  /** The key the caller's operations and payouts count against (CLIENT_RATE_LIMIT_PER_MIN). */
  quotaKey: string;
  /** On the streaming transports: a subscription tells the core it is live (gateway_subscriptions_active). */
  onListening?: OnListening;
}

export function createContext(
  { service }: Pick<GraphQLServing, 'service'>,
  { merchant, scopes, actor, quotaKey }: Principal,
  requestId: string,
): GatewayContext {
  return {
    merchant,
    actor,
    scopes,
    service,
    requestId,
    quotaKey,
    loader: new DataLoader((ids: readonly string[]) => service.getMany(merchant, ids), { maxBatchSize: 100 }),
  };
}
