import { AuditSigningKeys, signedCheckpoint } from './audit.keys';
import { AuditCheckpointStore } from './disbursement.ports';

/**
 * Signs every merchant's chain head that moved since its last checkpoint, and keeps the signatures.
 * Replicas may run it at once: both sign the same head, and the store keeps one. Resolves to how
 * many heads it signed.
 */
export async function signCheckpoints(store: AuditCheckpointStore, keys: AuditSigningKeys, now: Date): Promise<number> {
  const heads = await store.unsignedHeads();
  const at = now.toISOString();
  await store.addCheckpoints(heads.map((head) => signedCheckpoint(keys, head, at)));
  return heads.length;
}
