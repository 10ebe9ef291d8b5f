import { AuditEntry, chainHash, GENESIS_HASH, macVerifies } from './audit.entry';
import { AuditCheckpoint, AuditVerifyingKeys, checkpointCheck } from './audit.keys';
import { PayoutLifecycles } from './audit.lifecycle';
import { UncheckedRange, UncheckedRanges } from './audit.unchecked';
import { Disbursement, isFinal } from './disbursement.model';
import { toMinor } from './payout.controls';

/** Where a merchant's chain first fails to verify, and why. */
export interface ChainBreak {
  sequence: number;
  why: string;
}

/** What a merchant's chain must agree with besides its own links. */
export interface ChainWitnesses {
  /** The merchant whose chain it is: an entry keyed by content is keyed for its merchant. */
  merchantId?: string;
  /** The last sequence and hash its head row recorded, read before the entries. */
  head?: { sequence: number; hash: string };
  /** Its signed checkpoints (from the database, a kept file, or both), any order. */
  checkpoints?: readonly AuditCheckpoint[];
  /**
   * The keys given: with chain keys every entry's keyed value is checked (each under the key it
   * names); with public keys alone, the signatures. What a key not given made is `unchecked`.
   */
  keys?: readonly AuditVerifyingKeys[];
}

/** Every break of one merchant's chain, how many entries it holds, and what no key given could check. */
export interface ChainReport {
  count: number;
  breaks: ChainBreak[];
  unchecked: UncheckedRange[];
}

/**
 * Checks one merchant's entries, read oldest first, against the chain rule: numbered from 1 without
 * gaps, each `previousHash` the hash before it, each `hash` recomputed from the content. Reads as it
 * goes, keeping only the ids of entries keyed by content (about 100 bytes each), so each id is
 * seen once. Besides:
 * - every checkpoint's signature, under the key it names (one that does not verify is reported as
 *   forged and set aside, so a forged row never stops the rest being checked; one whose key was not
 *   given is unchecked), and that the chain passes through every genuinely signed head, so a rewrite
 *   before the last checkpoint, or a tail cut below it, fails whatever the head row says;
 * - with chain keys, each entry's keyed value under the key it names, so an entry forged through the
 *   database fails even once a later checkpoint signs it; an entry without one (written before the
 *   chain was keyed) passes only below a signed checkpoint; one keyed under a key not given is
 *   unchecked; an entry keyed by content (it has an id) whose id came before is a copy of a genuine
 *   entry, replayed;
 * - the head row, so entries removed from the end, or a chain rewritten from some entry on, show;
 * - each payout's states against their rules (audit.lifecycle.ts): nothing after its end, no send
 *   while it awaits approval, no send refused for a record changed outside the gateway.
 * After a break it carries on from the entry as stored, so every break is reported, not the first.
 */
export async function chainBreaks(
  entries: AsyncIterable<AuditEntry>,
  witnesses: ChainWitnesses = {},
): Promise<ChainReport> {
  const { head, keys } = witnesses;
  const breaks: ChainBreak[] = [];
  const unchecked = new UncheckedRanges();
  const signed = new Map<number, AuditCheckpoint[]>();
  let covered = 0;
  const checkpoints = [...(witnesses.checkpoints ?? [])].sort((a, b) => a.sequence - b.sequence);
  for (const c of checkpoints) {
    const check = checkpointCheck(keys ?? [], c);
    if (check === 'key not given' && keys && keys.length > 0) {
      unchecked.add('checkpoints', c.keyId, c.sequence);
      continue;
    }
    if (check !== 'signed') {
      breaks.push({
        sequence: c.sequence,
        why: `its checkpoint signed at ${c.at} does not carry the gateway's signature: forged, set aside`,
      });
      continue;
    }
    signed.set(c.sequence, [...(signed.get(c.sequence) ?? []), c]);
    covered = Math.max(covered, c.sequence);
  }
  let expected = 1;
  let previous = GENESIS_HASH;
  let last = 0;
  const ids = new Map<string, number>();
  const lifecycles = new PayoutLifecycles();
  for await (const entry of entries) {
    const first = entry.entryId ? ids.get(entry.entryId) : undefined;
    const why =
      first === undefined
        ? (entryBreak(entry, { expected, previous, covered }, signed, head) ??
          macBreak(entry, { covered, merchantId: witnesses.merchantId ?? '' }, keys, unchecked) ??
          lifecycles.check(entry))
        : `its id is the one of the entry at sequence ${first}: a copy of an entry, replayed`;
    if (entry.entryId && first === undefined) ids.set(entry.entryId, entry.sequence);
    if (why) breaks.push({ sequence: entry.sequence, why });
    previous = entry.hash;
    expected = entry.sequence + 1;
    last = Math.max(last, entry.sequence);
  }
  if (last < covered)
    breaks.push({
      sequence: last + 1,
      why: `the chain ends before it, but a signed checkpoint records ${covered} entries: the rest are missing`,
    });
  else if (head && last < head.sequence)
    breaks.push({
      sequence: last + 1,
      why: `the chain ends before it, but the merchant's head records ${head.sequence} entries: the rest are missing`,
    });
  return { count: last, breaks, unchecked: unchecked.ranges };
}

/** Why one entry breaks the chain where it stands, or undefined. */
function entryBreak(
  entry: AuditEntry,
  at: { expected: number; previous: string; covered: number },
  signed: ReadonlyMap<number, AuditCheckpoint[]>,
  head: ChainWitnesses['head'],
): string | undefined {
  const { expected, previous, covered } = at;
  if (entry.sequence !== expected) return `expected sequence ${expected}: an entry is missing or out of place`;
  if (entry.previousHash !== previous) return 'its previous hash is not the hash of the entry before it';
  if (chainHash(previous, entry.sequence, entry) !== entry.hash)
    return 'its content does not match its hash: it was altered';
  if (entry.mac === null && entry.sequence > covered)
    return 'it has no keyed value and no signed checkpoint covers it: it was not written by the gateway';
  const against = signed.get(entry.sequence)?.find((c) => c.hash !== entry.hash);
  if (against)
    return `its hash is not the one the checkpoint signed at ${against.at} recorded: the chain was rewritten`;
  if (entry.sequence === head?.sequence && entry.hash !== head.hash)
    return "its hash is not the one the merchant's head recorded: the chain was rewritten";
  return undefined;
}

/**
 * Why an entry's keyed value breaks the chain, checked under the chain key of the key it names, or
 * undefined. Without chain keys (public keys alone) nothing is checked here. An entry naming a key
 * not given is unchecked; one naming none (written before key ids were recorded) must verify under
 * one of the keys given, or, below a signed checkpoint (which attests its content), is unchecked.
 */
function macBreak(
  entry: AuditEntry,
  at: { covered: number; merchantId: string },
  keys: readonly AuditVerifyingKeys[] | undefined,
  unchecked: UncheckedRanges,
): string | undefined {
  const chainKeys = (keys ?? []).filter((k) => k.chainKey !== undefined);
  if (entry.mac === null || chainKeys.length === 0) return undefined;
  const named = entry.keyId === null ? chainKeys : chainKeys.filter((k) => k.keyId === entry.keyId);
  if (named.length === 0) {
    unchecked.add('entries', entry.keyId, entry.sequence);
    return undefined;
  }
  if (named.some((k) => k.chainKey && macVerifies(k.chainKey, at.merchantId, entry))) return undefined;
  if (entry.keyId === null && entry.sequence <= at.covered) {
    unchecked.add('entries', null, entry.sequence);
    return undefined;
  }
  return entry.keyId === null
    ? 'its keyed value verifies under none of the keys given: it was not written by the gateway'
    : `its keyed value does not verify under key ${entry.keyId}: it was not written by the gateway`;
}

/** The count, or the chain's first break (chainBreaks has them all). */
export async function verifyChain(
  entries: AsyncIterable<AuditEntry>,
  witnesses: ChainWitnesses = {},
): Promise<{ count: number } | ChainBreak> {
  const { count, breaks } = await chainBreaks(entries, witnesses);
  return breaks[0] ?? { count };
}

/** A stored payout as the verifier reads it: its row's columns and its record. */
export interface StoredPayout {
  referenceId: string;
  /** The row's columns, which statements and exports read. */
  status: string;
  currency: string;
  amountMinor: number;
  /** The record, which the API serves. */
  record: Pick<Disbursement, 'status' | 'amount' | 'currency' | 'accountNumber'>;
}

/**
 * What the payout check reads of the trail about a payout: the last entry that gave its status, and
 * the detail of its CREATE_REQUESTED entry, which names the account it was asked for.
 */
export type LastEntry = Pick<AuditEntry, 'sequence' | 'status' | 'amount' | 'currency'> & {
  requestedDetail: string | null;
};

/** How audit.rules.ts `requested` ends a CREATE_REQUESTED entry's detail: `… payout to <account>`. */
const REQUESTED_TO = ' payout to ';

/**
 * Why a stored payout disagrees with the last audit entry about it (the last that gave its status),
 * or undefined when it agrees. Amount and currency never change after a create, so every entry
 * about a payout must carry its amount and currency, and its account must be the one its request
 * named; a final status is final, so once either the payout or that entry holds one, both must
 * hold the same.
 */
export function payoutAgainstTrail(payout: StoredPayout, last: LastEntry | undefined): string | undefined {
  if (!last) return 'no audit entry records it';
  const { record } = payout;
  if (record.status !== payout.status) return `its record says ${record.status} but its row ${payout.status}`;
  if (last.amount === null || record.amount !== last.amount || payout.amountMinor !== toMinor(last.amount))
    return `its amount is ${record.amount} (row: ${payout.amountMinor} minor units) but the audit entry at sequence ${last.sequence} records ${String(last.amount)}`;
  if (record.currency !== last.currency || payout.currency !== last.currency)
    return `its currency is ${record.currency} but the audit entry at sequence ${last.sequence} records ${String(last.currency)}`;
  const requested = last.requestedDetail;
  if (requested !== null && !requested.endsWith(`${REQUESTED_TO}${record.accountNumber}`))
    return `its account is ${record.accountNumber} but its CREATE_REQUESTED entry says "${requested}"`;
  const lastStatus = last.status;
  if (lastStatus !== null && (isFinal(record.status) || isFinal(lastStatus)) && record.status !== lastStatus)
    return `its status is ${record.status} but the audit entry at sequence ${last.sequence} records ${lastStatus}`;
  return undefined;
}
