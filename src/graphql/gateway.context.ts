import DataLoader from 'dataloader';
import { MerchantAccount } from '../auth/merchant.registry';
import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementService } from '../disbursements/disbursement.service';

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
