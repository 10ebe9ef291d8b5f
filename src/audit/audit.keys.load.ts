import { Config } from '../config';
import { SECRETS } from '../config.secrets';
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
    secrets: SECRETS.auditSigningKey.forms(pem),
  };
}
