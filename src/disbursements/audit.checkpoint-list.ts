import { AuditCheckpoint } from './audit.keys';
import { Merchant, RecordsReader } from './disbursement.ports';

/** How many checkpoints `auditCheckpoints` answers: a day of minutes is more than anyone reads on a screen. */
export const CHECKPOINTS_LISTED = 100;

/** The merchant's latest signed chain heads, newest first; only that merchant's, as the store keys them. */
export function auditCheckpoints(records: RecordsReader, merchant: Merchant): Promise<AuditCheckpoint[]> {
  return records.latestCheckpoints(merchant.id, CHECKPOINTS_LISTED);
}
