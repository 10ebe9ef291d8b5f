import { AuditDraft, AuditEntry, chained } from '../disbursements/audit.entry';
import { SqliteStatements } from './sqlite.statements';

/**
 * Appends entries to the merchant's audit chain, inside the caller's transaction: each entry links to
 * the hash of the one before (on PostgreSQL a trigger does this; here the store does).
 */
export function appendAuditChain(q: SqliteStatements, merchantId: string, drafts: readonly AuditDraft[]): void {
  if (drafts.length === 0) return;
  const head = q.auditHead.get(merchantId) as { audit_sequence: number; audit_hash: string } | undefined;
  let last: AuditEntry | { sequence: number; hash: string } | undefined =
    head && head.audit_sequence > 0 ? { sequence: head.audit_sequence, hash: head.audit_hash } : undefined;
  for (const draft of drafts) {
    const entry = chained(last, draft);
    q.appendAudit.run(
      merchantId,
      entry.sequence,
      entry.at,
      entry.actor,
      entry.action,
      entry.referenceId,
      entry.status,
      entry.amount,
      entry.currency,
      entry.detail,
      entry.hash,
      entry.previousHash,
    );
    last = entry;
  }
  if (last) q.setAuditHead.run(merchantId, last.sequence, last.hash);
}
