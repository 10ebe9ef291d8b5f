import { Config } from '../config';
import { auditSigningKeys, AuditSigningKeys } from '../disbursements/audit.keys';
import { DEV_AUDIT_KEY_FILE, loadOrCreateDevAuditKey } from './audit.dev-key';

/** The gateway's audit keys, whether they are the development key, and the forms of them a scrubber removes. */
export interface LoadedAuditKeys {
  keys: AuditSigningKeys;
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

/** Every form in which the key could leak: the PEM's body lines, and the chain key in hex and base64. */
function auditKeySecrets(pem: string, keys: AuditSigningKeys): string[] {
  const body = pem.split('\n').filter((line) => line.length > 0 && !line.startsWith('-----'));
  return [...body, body.join(''), keys.chainKey.toString('hex'), keys.chainKey.toString('base64')];
}
