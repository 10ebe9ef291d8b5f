import { KeyedDraft, linked } from '../disbursements/audit.entry';
import { SqliteStatements } from './sqlite.statements';

/**
 * Appends entries the gateway keyed to the merchant's audit chain, inside the caller's transaction:
 * numbered and linked to the one before here, in-process (on PostgreSQL the `audit_chain()` trigger
 * links them; here the store is the only writer).
 */
export function appendAuditChain(q: SqliteStatements, merchantId: string, drafts: readonly KeyedDraft[]): void {
  if (drafts.length === 0) return;
  const head = q.auditHead.get(merchantId) as { audit_sequence: number; audit_hash: string } | undefined;
  const previous =
    head && head.audit_sequence > 0 ? { sequence: head.audit_sequence, hash: head.audit_hash } : undefined;
  const entries = linked(previous, drafts);
  for (const entry of entries)
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
      entry.mac,
      entry.entryId,
      entry.keyId,
    );
  const last = entries[entries.length - 1];
  q.setAuditHead.run(merchantId, last.sequence, last.hash);
}
