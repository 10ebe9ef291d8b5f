import { generateKeyPairSync } from 'node:crypto';
import { auditSigningKeys } from '../../src/disbursements/audit.keys';

/** The audit keys of the stores and services under test, as a gateway derives its own from AUDIT_SIGNING_KEY. */
export const TEST_AUDIT_KEYS = auditSigningKeys(
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
);

/** The key stores under test make each audit entry's keyed value with, and record the id of. */
export const TEST_ENTRY_KEY = TEST_AUDIT_KEYS[0];

/** Its chain key. */
export const TEST_CHAIN_KEY = TEST_ENTRY_KEY.chainKey;
