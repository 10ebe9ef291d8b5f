import { AuditEntry, chainHash, GENESIS_HASH } from './audit.entry';

/** Where a merchant's chain first fails to verify, and why. */
export interface ChainBreak {
  sequence: number;
  why: string;
}

/**
 * Checks one merchant's entries, read oldest first, against the chain rule: numbered from 1 without
 * gaps, each `previousHash` the hash before it, each `hash` recomputed from the content. Reads as it
 * goes, so a million entries take constant memory. With the merchant's `head` (the last sequence and
 * hash its head row recorded, read before the entries), entries removed from the end show too, and
 * so does a chain rewritten from some entry on. Resolves to the count, or the first break.
 */
export async function verifyChain(
  entries: AsyncIterable<AuditEntry>,
  head?: { sequence: number; hash: string },
): Promise<{ count: number } | ChainBreak> {
  let expected = 1;
  let previous = GENESIS_HASH;
  for await (const entry of entries) {
    if (entry.sequence !== expected)
      return { sequence: entry.sequence, why: `expected sequence ${expected}: an entry is missing or out of place` };
    if (entry.previousHash !== previous)
      return { sequence: entry.sequence, why: 'its previous hash is not the hash of the entry before it' };
    if (chainHash(previous, entry.sequence, entry) !== entry.hash)
      return { sequence: entry.sequence, why: 'its content does not match its hash: it was altered' };
    if (entry.sequence === head?.sequence && entry.hash !== head.hash)
      return {
        sequence: entry.sequence,
        why: "its hash is not the one the merchant's head recorded: the chain was rewritten",
      };
    previous = entry.hash;
    expected += 1;
  }
  if (head && expected <= head.sequence)
    return {
      sequence: expected,
      why: `the chain ends before it, but the merchant's head records ${head.sequence} entries: the rest are missing`,
    };
  return { count: expected - 1 };
}
