import { AuditEntry, chainHash, GENESIS_HASH } from './audit.entry';

/** Where a merchant's chain first fails to verify, and why. */
export interface ChainBreak {
  sequence: number;
  why: string;
}

/**
 * Checks one merchant's entries, read oldest first, against the chain rule: numbered from 1 without
 * gaps, each `previousHash` the hash before it, each `hash` recomputed from the content. Reads as it
 * goes, so a million entries take constant memory. Resolves to the count, or the first break.
 */
export async function verifyChain(entries: AsyncIterable<AuditEntry>): Promise<{ count: number } | ChainBreak> {
  let expected = 1;
  let previous = GENESIS_HASH;
  for await (const entry of entries) {
    if (entry.sequence !== expected)
      return { sequence: entry.sequence, why: `expected sequence ${expected}: an entry is missing or out of place` };
    if (entry.previousHash !== previous)
      return { sequence: entry.sequence, why: 'its previous hash is not the hash of the entry before it' };
    if (chainHash(previous, entry.sequence, entry) !== entry.hash)
      return { sequence: entry.sequence, why: 'its content does not match its hash: it was altered' };
    previous = entry.hash;
    expected += 1;
  }
  return { count: expected - 1 };
}
