import { AuditCheckpoint, AuditVerifyingKeys, checkpointVerifies } from './audit.keys';
import { RecordsReader } from './disbursement.ports';

/** The checkpoint of the highest sequence whose signature verifies under `keys`, of one merchant's kept list. */
export function lastKept(
  keys: readonly AuditVerifyingKeys[],
  checkpoints: readonly AuditCheckpoint[],
): AuditCheckpoint | undefined {
  return checkpoints
    .filter((c) => checkpointVerifies(keys, c))
    .reduce<AuditCheckpoint | undefined>((top, c) => (top && top.sequence >= c.sequence ? top : c), undefined);
}

/**
 * The merchants whose trail no longer passes through the last checkpoint kept outside the database
 * (the highest whose signature verifies), each with why: entries cut from the end, or rewritten. Read
 * at start, before the gateway signs any head, so a cut trail is called out instead of signed quietly.
 */
export async function trailsBehindKept(
  records: RecordsReader,
  keys: readonly AuditVerifyingKeys[],
  kept: ReadonlyMap<string, readonly AuditCheckpoint[]>,
): Promise<string[]> {
  const behind: string[] = [];
  for (const [merchantId, checkpoints] of kept) {
    const last = lastKept(keys, checkpoints);
    if (!last) continue;
    const page = await records.auditPage(merchantId, { after: last.sequence - 1, limit: 1, filter: {} });
    const entry = page.entries[0];
    if (entry?.sequence !== last.sequence)
      behind.push(`merchant ${merchantId}: its trail ends before sequence ${last.sequence}, signed at ${last.at}`);
    else if (entry.hash !== last.hash)
      behind.push(`merchant ${merchantId}: its entry at sequence ${last.sequence} is not the one signed at ${last.at}`);
  }
  return behind;
}
