import DataLoader from 'dataloader';
import { GraphQLSchema } from 'graphql';
import { ClientAuth, Principal } from '../auth/client.auth';
import { ClientRateLimit } from '../auth/client.rate-limit';
import { MerchantAccount } from '../auth/merchant.registry';
import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementService } from '../disbursements/disbursement.service';
import { WalletBalances } from '../disbursements/wallet.balance';
import { DisbursementBatches } from '../disbursements/disbursement.batch';
import { DisbursementHistory } from '../disbursements/disbursement.history';
import { Logger } from '../observability/logger';
import { GatewayMetrics } from '../observability/metrics';

/** What serving GraphQL needs, over HTTP and over websockets alike. */
export interface GraphQLServing {
  schema: GraphQLSchema;
  service: DisbursementService;
  auth: ClientAuth;
  wallet: WalletBalances;
  batches: DisbursementBatches;
  history: DisbursementHistory;
  rateLimit: ClientRateLimit;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Schema introspection (GRAPHQL_INTROSPECTION), refused by the same rule on both transports. */
  introspection: boolean;
}

/** The domain use cases a resolver may reach. */
export type UseCases = Pick<GraphQLServing, 'service' | 'wallet' | 'batches' | 'history'>;

export interface GatewayContext extends UseCases {
  merchant: MerchantAccount;
  /** What the caller's credential allows (operation.scopes.ts checks it before execution). */
  scopes: ReadonlySet<string>;
  /** Per operation, so a long-lived subscription never reads a cached, stale record. */
  loader: DataLoader<string, Disbursement | undefined>;
  requestId: string;
}

export function createContext(
  { service, wallet, batches, history }: UseCases,
  { merchant, scopes }: Principal,
  requestId: string,
): GatewayContext {
  return {
    merchant,
    scopes,
    service,
    wallet,
    batches,
    history,
    requestId,
    loader: new DataLoader((ids: readonly string[]) => service.getMany(merchant, ids), { maxBatchSize: 100 }),
  };
}
