import { Config } from '../config';
import { AuditKeyRing, auditSigningKeys } from '../disbursements/audit.keys';
import { DEV_AUDIT_KEY_FILE, loadOrCreateDevAuditKey } from './audit.dev-key';

/** The gateway's audit keys, whether they are the development key, and the forms of them a scrubber removes. */
export interface LoadedAuditKeys {
  /** The first signs and keys what is written; every one verifies what it made. */
  keys: AuditKeyRing;
  /** The file of the development key when AUDIT_SIGNING_KEY is unset. */
  developmentFile?: string;
  secrets: string[];
}

/** AUDIT_SIGNING_KEY, or the development key (made at first start). */
export async function loadAuditKeys(config: Config): Promise<LoadedAuditKeys> {
  const pem = config.audit.signingKey ?? (await loadOrCreateDevAuditKey());
  const keys = auditSigningKeys(pem);
  return {
    keys,
    developmentFile: config.audit.signingKey ? undefined : DEV_AUDIT_KEY_FILE,
    secrets: auditKeySecrets(pem, keys),
  };
}

/**
 * Every form in which a key could leak: each PEM's body lines and body whole, and each chain key in
 * hex and base64.
 */
function auditKeySecrets(pem: string, keys: AuditKeyRing): string[] {
  const blocks = pem.split(/-----END [A-Z ]+-----/);
  const bodies = blocks.map((block) =>
    block.split('\n').filter((line) => line.trim().length > 0 && !line.startsWith('-----')),
  );
  return [
    ...bodies.flat(),
    ...bodies.filter((body) => body.length > 0).map((body) => body.join('')),
    ...keys.flatMap((k) => [k.chainKey.toString('hex'), k.chainKey.toString('base64')]),
  ];
}
