import { sql } from '../database/sql.dialect';

/** A batch of final payouts not written since `before`: what RECORD_RETENTION_SECONDS removes, one audited removal each. */
export const finalBefore = (before: number) =>
  sql`SELECT merchant_id, reference_id FROM payouts WHERE final = 1 AND written_at < ${before} ORDER BY written_at LIMIT 1000`;
