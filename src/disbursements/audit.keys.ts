import { createPrivateKey, createPublicKey, hkdfSync, KeyObject, sign, verify } from 'node:crypto';

/**
 * A signed chain head: the gateway's Ed25519 signature over the merchant, the last entry's sequence
 * and hash, and when it signed. Kept in the database and, by whoever runs `audit:checkpoint`,
 * outside it: a history rewritten later no longer passes through what was signed.
 */
export interface AuditCheckpoint {
  merchantId: string;
  sequence: number;
  hash: string;
  /** ISO time of signing. */
  at: string;
  /** base64url Ed25519 signature over `checkpointText`. */
  signature: string;
}

/** What verifies the trail: the public key always; the chain key only where the signing key is. */
export interface AuditVerifyingKeys {
  publicKey: KeyObject;
  chainKey?: Buffer;
}

/** The gateway's keys: it signs checkpoints and keys each entry it appends. */
export interface AuditSigningKeys extends AuditVerifyingKeys {
  privateKey: KeyObject;
  chainKey: Buffer;
}

/** Domain separation: the chain key is good for nothing else than entries. */
const CHAIN_KEY_INFO = 'payout-gateway audit chain key v1';

/**
 * The keys of AUDIT_SIGNING_KEY (an Ed25519 private key, PKCS#8 PEM). The chain key is derived from
 * it with HKDF-SHA256, so one secret is kept and rotated; throws when it is not an Ed25519 key.
 */
export function auditSigningKeys(pem: string): AuditSigningKeys {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the audit signing key must be an Ed25519 key');
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  const chainKey = Buffer.from(hkdfSync('sha256', der, Buffer.alloc(0), CHAIN_KEY_INFO, 32));
  return { privateKey, publicKey: createPublicKey(privateKey), chainKey };
}

/** Keys that verify but cannot sign (`--public-key`): an Ed25519 public key as SPKI PEM. */
export function auditPublicKey(pem: string): AuditVerifyingKeys {
  const publicKey = createPublicKey(pem);
  if (publicKey.asymmetricKeyType !== 'ed25519') throw new Error('the audit public key must be an Ed25519 key');
  return { publicKey };
}

/** The exact text a checkpoint's signature covers: a JSON array, labelled so it signs nothing else. */
export function checkpointText(c: Omit<AuditCheckpoint, 'signature'>): string {
  return JSON.stringify(['payout-gateway audit checkpoint v1', c.merchantId, c.sequence, c.hash, c.at]);
}

export function signedCheckpoint(
  keys: AuditSigningKeys,
  head: { merchantId: string; sequence: number; hash: string },
  at: string,
): AuditCheckpoint {
  const unsigned = { merchantId: head.merchantId, sequence: head.sequence, hash: head.hash, at };
  const signature = sign(null, Buffer.from(checkpointText(unsigned)), keys.privateKey).toString('base64url');
  return { ...unsigned, signature };
}

export function checkpointVerifies(keys: AuditVerifyingKeys, c: AuditCheckpoint): boolean {
  return verify(null, Buffer.from(checkpointText(c)), keys.publicKey, Buffer.from(c.signature, 'base64url'));
}
