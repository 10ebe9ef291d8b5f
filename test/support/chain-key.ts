import { randomBytes } from 'node:crypto';

/** The key stores under test make each audit entry's keyed value with (a gateway derives its own from AUDIT_SIGNING_KEY). */
export const TEST_CHAIN_KEY = randomBytes(32);
