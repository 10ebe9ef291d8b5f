import { badInput } from './disbursement.errors';
import { AuditFilter, AuditPage, Merchant, RecordsReader } from './disbursement.ports';

export const MAX_AUDIT_PAGE = 200;

export interface AuditRequest {
  first: number;
  /** The sequence of the last entry seen. */
  after?: number;
  filter: AuditFilter;
}

/** A page of the merchant's audit chain, oldest first; only that merchant's, as the store keys it. */
export function auditTrail(records: RecordsReader, merchant: Merchant, request: AuditRequest): Promise<AuditPage> {
  const { first, after, filter } = request;
  if (!Number.isInteger(first) || first < 0 || first > MAX_AUDIT_PAGE)
    throw badInput(`first must be from 0 to ${MAX_AUDIT_PAGE}`, ['first']);
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to)
    throw badInput('filter.from must not be after filter.to', ['filter.from', 'filter.to']);
  return records.auditPage(merchant.id, { after, limit: first, filter });
}
