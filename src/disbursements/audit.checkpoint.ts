import { AuditCheckpoint, AuditSigningKeys, signedCheckpoint } from './audit.keys';
import { AuditCheckpointStore } from './disbursement.ports';

/**
 * Signs every merchant's chain head that moved since its last checkpoint, and keeps the signatures:
 * first outside the database (`keepOutside`, the gateway's checkpoint file), then in it, so the
 * database never holds a checkpoint the file lacks. Replicas may run it at once: both sign the same
 * head, and the store keeps one. Resolves to how many heads it signed.
 */
export async function signCheckpoints(
  store: AuditCheckpointStore,
  keys: AuditSigningKeys,
  now: Date,
  keepOutside: (checkpoints: readonly AuditCheckpoint[]) => Promise<void> = async () => undefined,
): Promise<number> {
  const heads = await store.unsignedHeads();
  const at = now.toISOString();
  const signed = heads.map((head) => signedCheckpoint(keys, head, at));
  await keepOutside(signed);
  await store.addCheckpoints(signed);
  return heads.length;
}
