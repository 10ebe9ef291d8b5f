import { AuditAction, auditEvent } from './audit.entry';
import { DisbursementStore, RecordsReader } from './disbursement.ports';

/**
 * After a rotation of AUDIT_SIGNING_KEY: one AUDIT_KEY_CHANGED entry in the chain of each merchant
 * whose newest checkpoint was signed under another key. Its head moves, so the next checkpoint,
 * under the key in use, signs a head whose hash covers every earlier entry: an idle merchant's
 * trail is re-attested too, and the old private key can go. A checkpoint that names no key
 * (signed before key ids were recorded) is left as it is. Resolves to the merchants it wrote to.
 */
export async function recordKeyChange(
  store: Pick<DisbursementStore, 'appendAudit'> & Pick<RecordsReader, 'latestCheckpoints'>,
  merchantIds: readonly string[],
  keyId: string,
  now: Date,
): Promise<string[]> {
  const changed: string[] = [];
  for (const merchantId of merchantIds) {
    const [newest] = await store.latestCheckpoints(merchantId, 1);
    if (!newest || newest.keyId === null || newest.keyId === keyId) continue;
    const detail = `entries keyed and checkpoints signed under key ${keyId}, after key ${newest.keyId}: the next checkpoint re-attests every earlier entry`;
    await store.appendAudit(merchantId, [auditEvent(AuditAction.AUDIT_KEY_CHANGED, now.toISOString(), { detail })]);
    changed.push(merchantId);
  }
  return changed;
}
