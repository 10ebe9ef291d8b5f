import { createHash, createPrivateKey, createPublicKey, hkdfSync, KeyObject, sign, verify } from 'node:crypto';

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
  /**
   * The signing key's id (`auditKeyId`); null for checkpoints signed before key ids were recorded
   * (schema version 11), which any key given may have signed. Not signed itself: the signature
   * proves the key, the id only says which to try.
   */
  keyId: string | null;
}

/** What verifies the trail: the public key always; the chain key only where the signing key is. */
export interface AuditVerifyingKeys {
  keyId: string;
  publicKey: KeyObject;
  chainKey?: Buffer;
}

/** One key of the gateway: it signs checkpoints and keys the entries it appends. */
export interface AuditSigningKeys extends AuditVerifyingKeys {
  privateKey: KeyObject;
  chainKey: Buffer;
}

/** Keys newest first: the first signs and keys what is written now; every one verifies what it made. */
export type AuditKeyRing<K extends AuditVerifyingKeys = AuditSigningKeys> = readonly [K, ...K[]];

/** Domain separation: the chain key is good for nothing else than entries. */
const CHAIN_KEY_INFO = 'payout-gateway audit chain key v1';

/** Characters of a key id: 96 bits of the fingerprint, enough to tell keys apart, short enough to read. */
const KEY_ID_LENGTH = 16;

/** A key's id: base64url of sha256 over its public key's SPKI DER, the first 16 characters. Never secret. */
export function auditKeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url').slice(0, KEY_ID_LENGTH);
}

/** The PEM blocks of a setting or file, in order. */
function pemBlocks(text: string, what: string): string[] {
  const block = /-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g;
  const blocks = text.match(block) ?? [];
  if (blocks.length === 0) throw new Error(`${what} holds no PEM key`);
  if (text.replace(block, '').trim() !== '') throw new Error(`${what} holds text that is not a PEM key`);
  return blocks;
}

/** The ring of `keys`, refusing a key given twice (one key's id must name one key). */
function ringOf<K extends AuditVerifyingKeys>(keys: K[], what: string): AuditKeyRing<K> {
  const ids = new Set(keys.map((k) => k.keyId));
  if (ids.size !== keys.length) throw new Error(`${what} holds the same key twice`);
  const [first, ...rest] = keys;
  if (!first) throw new Error(`${what} holds no key`);
  return [first, ...rest];
}

function signingKeys(pem: string): AuditSigningKeys {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the audit signing key must be an Ed25519 key');
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  const chainKey = Buffer.from(hkdfSync('sha256', der, Buffer.alloc(0), CHAIN_KEY_INFO, 32));
  const publicKey = createPublicKey(privateKey);
  return { keyId: auditKeyId(publicKey), privateKey, publicKey, chainKey };
}

/**
 * The keys of AUDIT_SIGNING_KEY: one or more Ed25519 private keys (PKCS#8 PEM, one after another),
 * the first the one in use. Each one's chain key is derived from it with HKDF-SHA256, so one secret
 * is kept and rotated; throws when a key is not an Ed25519 key, or is given twice.
 */
export function auditSigningKeys(pem: string): AuditKeyRing {
  return ringOf(pemBlocks(pem, 'the audit signing key').map(signingKeys), 'the audit signing key');
}

/** Keys that verify but cannot sign (`--public-key`): Ed25519 public keys, SPKI PEM, one or more. */
export function auditPublicKeys(pem: string): AuditKeyRing<AuditVerifyingKeys> {
  const keys = pemBlocks(pem, 'the file').map((block) => {
    const publicKey = createPublicKey(block);
    if (publicKey.asymmetricKeyType !== 'ed25519') throw new Error('the audit public key must be an Ed25519 key');
    return { keyId: auditKeyId(publicKey), publicKey };
  });
  return ringOf(keys, 'the public keys given');
}

/** The ring of several, each checked as above: keys given in more than one place. */
export function joinedRing<K extends AuditVerifyingKeys>(rings: readonly AuditKeyRing<K>[]): AuditKeyRing<K> {
  return ringOf(
    rings.flatMap((ring) => [...ring]),
    'the public keys given',
  );
}

/** The exact text a checkpoint's signature covers: a JSON array, labelled so it signs nothing else. */
export function checkpointText(c: Omit<AuditCheckpoint, 'signature' | 'keyId'>): string {
  return JSON.stringify(['payout-gateway audit checkpoint v1', c.merchantId, c.sequence, c.hash, c.at]);
}

export function signedCheckpoint(
  keys: AuditSigningKeys,
  head: { merchantId: string; sequence: number; hash: string },
  at: string,
): AuditCheckpoint {
  const unsigned = { merchantId: head.merchantId, sequence: head.sequence, hash: head.hash, at };
  const signature = sign(null, Buffer.from(checkpointText(unsigned)), keys.privateKey).toString('base64url');
  return { ...unsigned, signature, keyId: keys.keyId };
}

/**
 * What the keys given can say of a checkpoint: signed by one of them; not verifiable, because the key
 * it names is not among them; or forged (it names a key given, or none, and no key given verifies it).
 */
export type CheckpointCheck = 'signed' | 'key not given' | 'forged';

export function checkpointCheck(ring: readonly AuditVerifyingKeys[], c: AuditCheckpoint): CheckpointCheck {
  const candidates = c.keyId === null ? ring : ring.filter((k) => k.keyId === c.keyId);
  if (candidates.length === 0) return 'key not given';
  const text = Buffer.from(checkpointText(c));
  const signature = Buffer.from(c.signature, 'base64url');
  return candidates.some((k) => verify(null, text, k.publicKey, signature)) ? 'signed' : 'forged';
}

/** Whether one of the keys given signed the checkpoint. */
export function checkpointVerifies(ring: readonly AuditVerifyingKeys[], c: AuditCheckpoint): boolean {
  return checkpointCheck(ring, c) === 'signed';
}
