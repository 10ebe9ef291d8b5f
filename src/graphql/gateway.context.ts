import DataLoader from 'dataloader';
import { GraphQLSchema } from 'graphql';
import { ClientRateLimit } from '../auth/client.rate-limit';
import { MerchantAccount, MerchantRegistry } from '../auth/merchant.registry';
import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementService } from '../disbursements/disbursement.service';
import { Logger } from '../observability/logger';
import { GatewayMetrics } from '../observability/metrics';

/** What serving GraphQL needs, over HTTP and over websockets alike. */
export interface GraphQLServing {
  schema: GraphQLSchema;
  service: DisbursementService;
  merchants: MerchantRegistry;
  rateLimit: ClientRateLimit;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Schema introspection (GRAPHQL_INTROSPECTION), refused by the same rule on both transports. */
  introspection: boolean;
}

export interface GatewayContext {
  merchant: MerchantAccount;
  service: DisbursementService;
  /** Per operation, so a long-lived subscription never reads a cached, stale record. */
  loader: DataLoader<string, Disbursement | undefined>;
  requestId: string;
}

export function createContext(service: DisbursementService, merchant: MerchantAccount, requestId: string): GatewayContext {
  return {
    merchant,
    service,
    requestId,
    loader: new DataLoader((ids: readonly string[]) => service.getMany(merchant, ids), { maxBatchSize: 100 }),
  };
}
