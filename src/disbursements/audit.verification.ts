import { AuditEntry } from './audit.entry';
import { AuditCheckpoint, AuditVerifyingKeys } from './audit.keys';
import { MAX_AUDIT_PAGE } from './audit.trail';
import { describeUnchecked } from './audit.unchecked';
import { chainBreaks } from './audit.verify';
import { Merchant, RecordsReader } from './disbursement.ports';

/** Checkpoints a check on demand reads at most, the newest: `audit:verify` reads them all. */
export const CHECKPOINTS_VERIFIED = 10_000;

export interface TrailVerification {
  verified: boolean;
  /** Entries that verified (all of them, when `verified`). */
  entries: number;
  /** Where the chain first fails, and why; or, unbroken, what no key the gateway has could check. */
  brokenAt?: number;
  reason?: string;
  /** The newest signed head, if any. */
  checkpoint?: AuditCheckpoint;
}

async function* chainOf(records: RecordsReader, merchantId: string): AsyncGenerator<AuditEntry> {
  for (let after: number | undefined; ;) {
    const page = await records.auditPage(merchantId, { after, limit: MAX_AUDIT_PAGE, filter: {} });
    yield* page.entries;
    if (!page.hasMore) return;
    after = page.entries[page.entries.length - 1].sequence;
  }
}

/**
 * The merchant's whole chain checked as `audit:verify` checks it (audit.verify.ts), by the gateway
 * with its own keys: links, hashes, keyed values, its head row and its newest checkpoints. The
 * payouts are not compared here; `audit:verify` does that too. What a key no longer configured made
 * is not checked, so the trail is not called verified.
 */
export async function verifyTrail(
  records: RecordsReader,
  keys: readonly AuditVerifyingKeys[],
  merchant: Merchant,
): Promise<TrailVerification> {
  const head = await records.auditHead(merchant.id);
  const checkpoints = await records.latestCheckpoints(merchant.id, CHECKPOINTS_VERIFIED);
  const result = await chainBreaks(chainOf(records, merchant.id), { merchantId: merchant.id, head, checkpoints, keys });
  const checkpoint = checkpoints[0];
  const broken = result.breaks[0];
  if (broken)
    return { verified: false, entries: broken.sequence - 1, brokenAt: broken.sequence, reason: broken.why, checkpoint };
  if (result.unchecked.length > 0) {
    const reason = `not checked, no key configured for it: ${result.unchecked.map(describeUnchecked).join('; ')}`;
    return { verified: false, entries: result.count, reason, checkpoint };
  }
  return { verified: true, entries: result.count, checkpoint };
}
