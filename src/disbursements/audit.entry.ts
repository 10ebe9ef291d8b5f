import { createHash, createHmac, randomFillSync } from 'node:crypto';
import { Disbursement, DisbursementStatus } from './disbursement.model';

/**
 * Every action an audit entry records, and when: the one list, from which the GraphQL enum `AuditAction`
 * and its descriptions are generated (src/graphql/schema/audit.type.ts); docs/audit-and-reconciliation.md's
 * table names the same actions (a test compares).
 */
export const AUDIT_ACTIONS = {
  CREATE_REQUESTED: 'a create was accepted for sending (or holding)',
  HELD: 'the payout controls held it for approval, at its request or at its send',
  SCHEDULED: 'it was stored to be sent at its `sendAt`',
  APPROVED: 'a second person approved it (written before its send)',
  REJECTED: 'an approver refused it; never sent',
  CANCELLED:
    'its requester (or an approver) withdrew it, anyone of the merchant a scheduled one, or its beneficiary was archived before its send; never sent',
  EXPIRED: 'nobody approved it in time, or a scheduled one was not sent within its late limit; never sent',
  LIMIT_REFUSED:
    '`maxAmount`, `dailyLimit` or `userDailyLimit` refused it at its request (nothing stored or sent), or `maxAmount` at its send (CANCELLED, never sent)',
  SENT: 'the create left the gateway (`at`: when); `detail` says when no answer came',
  PROVIDER_ANSWERED:
    'the provider answered the create (its status), refused it, or could not be reached (`detail` says which)',
  CALLBACK: 'a callback changed the payout (signed, or confirmed by check-status)',
  STATUS_CHECKED: 'a status check changed it (a refresh, the status rechecker, a callback the provider contradicted)',
  RECONCILED: "a reconciliation run took the provider's final status",
  RECORD_REMOVED:
    "retention (`RECORD_RETENTION_SECONDS`) removed the final payout's record; `status` null, its entries stay",
  EXPORTED: 'someone exported payouts (the window and the row count)',
  SEND_REFUSED:
    'at its approval or send, its record was not what was requested and decided (its seal, its trail says it ended, or no decision lets it go): CANCELLED, never sent; `audit:verify` reports it',
  BENEFICIARY_CREATED: 'a beneficiary was added to the book; `detail` names it, account masked',
  BENEFICIARY_CHANGED:
    'its name or account details changed: old and new in `detail`, account numbers masked to the last four',
  BENEFICIARY_APPROVED: 'a second person approved its new account details',
  BENEFICIARY_ARCHIVED: 'it was archived; it can never be paid again',
  MERCHANTS_RELOADED:
    'the operator reloaded `MERCHANTS_FILE` (`SIGHUP`) and it touched this merchant: the ids added, changed, removed (never a credential)',
  AUDIT_KEY_CHANGED:
    "the gateway started with another audit key in use than the one that signed this merchant's newest checkpoint: both key ids",
} as const;
export type AuditAction = keyof typeof AUDIT_ACTIONS;
/** Each action by its name, as an enum: `AuditAction.SENT`. */
export const AuditAction = Object.fromEntries(Object.keys(AUDIT_ACTIONS).map((action) => [action, action])) as {
  readonly [A in AuditAction]: A;
};

/** An entry as the domain writes it; the store gives it its place in the chain. */
export interface AuditDraft {
  /** ISO time, as `toISOString` writes it (the chain's canonical form). */
  at: string;
  /** Who did it, as the payout controls name actors; null for the provider and the gateway. */
  actor: string | null;
  action: AuditAction;
  referenceId: string | null;
  /** The payout's status after the entry (null when there is no payout, e.g. a refusal or an export). */
  status: DisbursementStatus | null;
  amount: string | null;
  currency: string | null;
  /** Free text for people; never a secret. */
  detail: string | null;
}

/**
 * A draft keyed by the gateway before it has a place: an id of its own and the keyed value of its
 * content (`contentMac`). Nothing in it depends on the chain, so the gateway keys it without asking
 * the database, and the database numbers and links it as it appends it.
 */
export interface KeyedDraft extends AuditDraft {
  /** A random id the gateway gives the entry; its keyed value covers it, so a copy is a repeat. */
  entryId: string;
  mac: string;
  /** The id of the audit key whose chain key made `mac`. */
  keyId: string;
}

/** An entry in its merchant's chain: numbered from 1 without gaps, each hash covering the one before. */
export interface AuditEntry extends AuditDraft {
  sequence: number;
  hash: string;
  previousHash: string;
  /**
   * hex HMAC-SHA256 under the chain key (derived from AUDIT_SIGNING_KEY, never stored): only the
   * gateway can write it, so an entry forged through the database has none that verifies. With an
   * `entryId` (schema version 10 on), it covers the merchant, the id and the content (`contentMac`);
   * without one, the entry's `hash` (`entryMac`, versions 5 to 7). Null for entries written before
   * the chain was keyed (version 5), which a signed checkpoint must cover instead.
   */
  mac: string | null;
  /** The id its keyed value covers; absent or null for an entry keyed over its hash. */
  entryId?: string | null;
  /**
   * The id of the key whose chain key made `mac` (audit.keys.ts `auditKeyId`); null for entries
   * written before key ids were recorded (schema version 11): the one key configured then.
   */
  keyId: string | null;
}

/** What keys an entry: the chain key of one audit key, and that key's id, recorded with the entry. */
export interface EntryKey {
  keyId: string;
  chainKey: Buffer;
}

/** The `previousHash` of a merchant's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** Longest detail kept: a provider's message or a reason is for people, not a place to store data. */
const DETAIL_LIMIT = 500;

/** A draft's fields in the fixed order both the chain's text and the keyed value's text list them. */
const contentFields = (draft: AuditDraft) => [
  draft.at,
  draft.actor,
  draft.action,
  draft.referenceId,
  draft.status,
  draft.amount,
  draft.currency,
  draft.detail,
];

/**
 * An entry's content as the chain hashes it: a JSON array of its fields in a fixed order. On
 * PostgreSQL the `audit_log_chain` trigger's function, `audit_chain()` (postgres.migrations.ts),
 * builds the same text from the row's columns with `to_json` and hashes it as it links the entry:
 * the two must write identical text, or the chain PostgreSQL writes does not verify here.
 */
export function canonicalContent(sequence: number, draft: AuditDraft): string {
  return JSON.stringify([sequence, ...contentFields(draft)]);
}

/** hex sha256 over the previous hash, a newline, and the entry's canonical content. */
export function chainHash(previousHash: string, sequence: number, draft: AuditDraft): string {
  return createHash('sha256')
    .update(`${previousHash}\n${canonicalContent(sequence, draft)}`)
    .digest('hex');
}

/** The keyed value of an entry written before version 10, whose hash is `hash`: hex HMAC-SHA256 under the chain key. */
export function entryMac(chainKey: Buffer, hash: string): string {
  return createHmac('sha256', chainKey).update(hash).digest('hex');
}

/**
 * The keyed value of an entry from version 10 on: hex HMAC-SHA256 under the chain key of a JSON
 * array of its merchant, its id and its content, independent of its place in the chain. The
 * merchant keeps it out of another merchant's chain, the id makes a copy of it a repeat.
 */
export function contentMac(chainKey: Buffer, merchantId: string, entryId: string, draft: AuditDraft): string {
  const content = JSON.stringify([merchantId, entryId, ...contentFields(draft)]);
  return createHmac('sha256', chainKey).update(content).digest('hex');
}

/** Entry ids drawn per refill: one system call for 256 of them instead of one each (as randomUUID pools). */
const ID_BYTES = 16;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idOffset = idPool.length;

/** 128 random bits, base64url: a fresh slice of the pool, refilled from the CSPRNG once used up. */
function entryIdOf(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  idOffset += ID_BYTES;
  return idPool.toString('base64url', idOffset - ID_BYTES, idOffset);
}

/** A draft given an id (128 random bits, base64url) and keyed for `merchantId` with `key`. */
export function keyed(merchantId: string, draft: AuditDraft, key: EntryKey): KeyedDraft {
  const entryId = entryIdOf();
  return { ...draft, entryId, mac: contentMac(key.chainKey, merchantId, entryId, draft), keyId: key.keyId };
}

/** Whether an entry's keyed value is the gateway's under `chainKey`, by the rule its version keys it with. */
export function macVerifies(chainKey: Buffer, merchantId: string, entry: AuditEntry): boolean {
  if (entry.mac === null) return false;
  const expected = entry.entryId
    ? contentMac(chainKey, merchantId, entry.entryId, entry)
    : entryMac(chainKey, entry.hash);
  return expected === entry.mac;
}

/**
 * The next entry after `previous` (undefined: the chain is empty): the draft keyed with `key` for
 * `merchantId` (keyed for no merchant without one), numbered and linked, as PostgreSQL's
 * `audit_chain()` trigger numbers and links what the gateway keyed.
 */
export function chained(
  previous: { sequence: number; hash: string } | undefined,
  draft: AuditDraft,
  key: EntryKey,
  merchantId = '',
): AuditEntry {
  return linked(previous, [keyed(merchantId, draft, key)])[0];
}

/** The entries of `drafts` in order after `previous`, as `chained` makes each. */
export function chainedAll(
  previous: { sequence: number; hash: string } | undefined,
  drafts: readonly AuditDraft[],
  key: EntryKey,
  merchantId: string,
): AuditEntry[] {
  return linked(
    previous,
    drafts.map((draft) => keyed(merchantId, draft, key)),
  );
}

/** Drafts the gateway keyed, numbered and linked in order after `previous`: the embedded file's in-process chaining. */
export function linked(
  previous: { sequence: number; hash: string } | undefined,
  drafts: readonly KeyedDraft[],
): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (const draft of drafts) {
    const before = entries.at(-1) ?? previous;
    const sequence = (before?.sequence ?? 0) + 1;
    const previousHash = before?.hash ?? GENESIS_HASH;
    entries.push({ ...draft, sequence, previousHash, hash: chainHash(previousHash, sequence, draft) });
  }
  return entries;
}

/**
 * Text as every engine stores it: well-formed (a lone surrogate would be stored as U+FFFD and the
 * hash of what was written would differ from the hash of what is read) and bounded.
 */
function stored(text: string | null | undefined, limit = Number.POSITIVE_INFINITY): string | null {
  return text === undefined || text === null ? null : text.toWellFormed().slice(0, limit);
}

/** An entry about a payout, as it stands after the change recorded. */
export function auditOf(
  record: Disbursement,
  action: AuditAction,
  at: string,
  opts: { actor?: string | null; detail?: string | null; status?: DisbursementStatus | null } = {},
): AuditDraft {
  return {
    at,
    actor: stored(opts.actor),
    action,
    referenceId: stored(record.referenceId),
    status: opts.status === undefined ? record.status : opts.status,
    amount: stored(record.amount),
    currency: stored(record.currency),
    detail: stored(opts.detail, DETAIL_LIMIT),
  };
}

/** An entry about no single payout's state (a refusal before anything was stored, an export). */
export function auditEvent(
  action: AuditAction,
  at: string,
  fields: Partial<Pick<AuditDraft, 'actor' | 'referenceId' | 'amount' | 'currency' | 'detail'>>,
): AuditDraft {
  return {
    at,
    actor: stored(fields.actor),
    action,
    referenceId: stored(fields.referenceId),
    status: null,
    amount: stored(fields.amount),
    currency: stored(fields.currency),
    detail: stored(fields.detail, DETAIL_LIMIT),
  };
}
