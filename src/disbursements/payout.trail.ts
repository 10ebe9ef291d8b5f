import { AuditAction, AuditEntry, EntryKey, macVerifies } from './audit.entry';
import { MAX_AUDIT_PAGE } from './audit.trail';
import { Disbursement, isFinal, SendDecision } from './disbursement.model';
import { RecordsReader } from './disbursement.ports';

/**
 * What a payout's audit trail records of its current life (from the latest CREATE_REQUESTED the
 * gateway keyed, never a copy of one): the entry that ended it, if one did, and the decision its keyed
 * entries record. The trail is append-only (on PostgreSQL the gateway's own role can only add to it,
 * through a function that checks each entry), so a payout row restored to an earlier state cannot
 * undo an ending: a send reads this first (send.recheck.ts).
 */
export interface TrailFacts {
  /** The first entry that gave it a final status (CANCELLED, EXPIRED, FAILED, SUCCESSFUL). */
  ended?: Pick<AuditEntry, 'action' | 'status' | 'sequence' | 'at'>;
  /**
   * The decision its keyed entries record, for a seal made before decisions were sealed: an APPROVED
   * entry by someone other than its requester, or a SCHEDULED entry of its create within the controls.
   */
  decision?: SendDecision;
  /** A keyed HELD entry with no keyed approval by another person after it: a second person must decide. */
  awaitsDecision?: boolean;
}

/** Entries read per page: a payout's trail is short, its repeats counted rather than written. */
const PAGE = MAX_AUDIT_PAGE;

/** Reads the payout's entries, oldest first, and what they record of its current life. */
export async function trailFacts(
  records: Pick<RecordsReader, 'auditPage'>,
  keys: readonly EntryKey[],
  payout: Pick<Disbursement, 'merchantId' | 'referenceId' | 'requesterId'>,
): Promise<TrailFacts> {
  const { merchantId, referenceId } = payout;
  let facts: TrailFacts = {};
  let requester: string | null = null;
  const ids = new Set<string>();
  /** Written by the gateway, and not a copy of an entry before it (a keyed value covers the entry's id). */
  const genuine = (entry: AuditEntry) => {
    if (!keys.some((k) => k.keyId === entry.keyId && macVerifies(k.chainKey, merchantId, entry))) return false;
    if (!entry.entryId) return true;
    if (ids.has(entry.entryId)) return false;
    ids.add(entry.entryId);
    return true;
  };
  for (let after: number | undefined; ;) {
    const page = await records.auditPage(merchantId, { after, limit: PAGE, filter: { referenceId } });
    for (const entry of page.entries) {
      const kept = genuine(entry);
      // A new life starts only with the gateway's own request: an entry added through the database
      // (forged, or a copy of the first) never clears an ending or a decision awaited.
      if (kept && entry.action === AuditAction.CREATE_REQUESTED) {
        facts = {};
        requester = entry.actor;
      }
      // Any ending counts, keyed or not: it can only stop a send.
      if (!facts.ended && entry.status !== null && isFinal(entry.status)) facts.ended = entry;
      if (!kept) continue;
      if (entry.action === AuditAction.APPROVED && entry.actor !== null && entry.actor !== requester) {
        facts.decision = { kind: 'APPROVED', byId: `audit:${entry.actor}`, by: entry.actor, at: entry.at };
        facts.awaitsDecision = undefined;
      }
      if (entry.action === AuditAction.HELD) facts = { ...facts, decision: undefined, awaitsDecision: true };
      if (entry.action === AuditAction.SCHEDULED && !facts.decision)
        facts.decision = { kind: 'WITHIN_LIMITS', byId: payout.requesterId ?? '', by: requester ?? '', at: entry.at };
    }
    if (!page.hasMore || page.entries.length === 0) return facts;
    after = page.entries[page.entries.length - 1].sequence;
  }
}
