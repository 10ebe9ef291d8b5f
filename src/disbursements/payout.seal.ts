import { createHmac, timingSafeEqual } from 'node:crypto';
import { fingerprint } from './disbursement.fingerprint';
import { Disbursement, SendDecision } from './disbursement.model';

/*
 * A payout's seal: the gateway's keyed value over who asked for what (merchant, referenceId, the
 * request's fingerprint, the requester) and, once made, the decision that lets the gateway send it
 * on its own (the requester's create within the controls, or a second person's approval: who and
 * when). It names the key that made it. A payout decided earlier and sent later (held then approved,
 * scheduled, sent again after it was never received) leaves only when its record carries a seal made
 * under the key in use for its request and a decision that allows the send: whoever can write to
 * the database, the gateway's own role included, has no key to seal another account or a decision
 * nobody made (docs/money-safety.md).
 */

/** Domain separation: the seal key, derived from an audit chain key, serves nothing else. */
const SEAL_KEY_LABEL = 'payout-gateway request seal key v1';
/** What a v2 seal's text starts with, then the key id and the value: `v2:<keyId>:<hex>`. */
const V2 = 'v2';

/** One seal key: the id of the audit key it is derived from, and the key. */
export interface SealKey {
  keyId: string;
  key: Buffer;
}

/**
 * The seal keys of AUDIT_SIGNING_KEY's keys, in its order: the first seals, and opens, what is sent;
 * the others only open what they sealed for the re-seal at start (payout.reseal.ts), never a send.
 */
export type SealKeys = readonly [SealKey, ...SealKey[]];

/** The seal key of an audit chain key (one of AUDIT_SIGNING_KEY's). */
function sealKeyOf(chainKey: Buffer): Buffer {
  return createHmac('sha256', chainKey).update(SEAL_KEY_LABEL).digest();
}

export function sealKeysOf(
  chainKeys: readonly [{ keyId: string; chainKey: Buffer }, ...{ keyId: string; chainKey: Buffer }[]],
): SealKeys {
  const [inUse, ...older] = chainKeys.map((k) => ({ keyId: k.keyId, key: sealKeyOf(k.chainKey) }));
  return [inUse, ...older];
}

/** What a seal covers, as a record holds it. */
type Sealed = Pick<Disbursement, 'merchantId' | 'referenceId' | 'request' | 'requesterId' | 'decision'>;

function mac(key: Buffer, record: Sealed, requestFingerprint: string): string {
  const { decision } = record;
  const text = JSON.stringify([
    'payout-gateway payout seal v2',
    record.merchantId,
    record.referenceId,
    requestFingerprint,
    record.requesterId ?? null,
    decision ? [decision.kind, decision.byId, decision.by, decision.at] : null,
  ]);
  return createHmac('sha256', key).update(text).digest('hex');
}

/** The record sealed under `key` as it stands: its request, requester and decision (none: a request awaiting one). */
export function sealed<R extends Sealed>(key: SealKey, record: R, requestFingerprint?: string): R & { seal: string } {
  const fp = requestFingerprint ?? (record.request ? fingerprint(record.request) : '');
  return { ...record, seal: `${V2}:${key.keyId}:${mac(key.key, record, fp)}` };
}

/** The seal a request alone got before decisions were sealed (schema versions before 12): no key id, no decision. */
function legacyMac(key: Buffer, record: Sealed, requestFingerprint: string): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([record.merchantId, record.referenceId, requestFingerprint]))
    .digest('hex');
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
};

/**
 * What a record's seal says, to the keys given (the one in use first):
 * - `sealed`: made under the key in use for this record's request, requester and decision;
 * - `legacy`: a request seal of before decisions were sealed, made under the key in use: its decision
 *   is the one its audit trail records (send.recheck.ts);
 * - `elsewhere`: made under another key: one this gateway holds only to re-seal at start, or one it
 *   does not hold (another replica's, during a rotation): held for an operator, never reported as
 *   tampered, since nothing here can tell;
 * - `broken`: made under a key given, but not for this record as it stands, or no seal: changed
 *   outside the gateway.
 */
export type SealState =
  { kind: 'sealed' } | { kind: 'legacy' } | { kind: 'elsewhere'; keyId: string } | { kind: 'broken'; why: string };

/**
 * The fields shown and sent (referenceId, channel, amount, currency, account) and its time are the
 * request's own: a row's sendAt is its request's, or none (a time already past when it was asked for).
 */
function showsItsRequest(record: Disbursement, requestFingerprint: string): boolean {
  const { request } = record;
  return (
    request !== undefined &&
    (record.sendAt === undefined || record.sendAt === request.sendAt) &&
    request.referenceId === record.referenceId &&
    request.channel === record.channel &&
    request.amount === record.amount &&
    request.currency === record.currency &&
    request.accountNumber === record.accountNumber &&
    record.fingerprint === requestFingerprint
  );
}

export function sealState(keys: SealKeys, record: Disbursement): SealState {
  const { request, seal } = record;
  if (!request || !seal) return { kind: 'broken', why: 'it carries no seal of its request' };
  const fp = fingerprint(request);
  if (!showsItsRequest(record, fp))
    return { kind: 'broken', why: 'its record differs from the request it was made with' };
  const [version, keyId, value] = seal.split(':');
  if (value === undefined) {
    // A legacy seal names no key: the one that opens it says which.
    const opener = keys.find((k) => same(seal, legacyMac(k.key, record, fp)));
    if (opener === keys[0]) return { kind: 'legacy' };
    return { kind: 'elsewhere', keyId: opener?.keyId ?? 'unnamed (sealed before key ids)' };
  }
  if (version !== V2) return { kind: 'broken', why: 'its seal is of no kind this gateway makes' };
  if (keyId !== keys[0].keyId) return { kind: 'elsewhere', keyId };
  return same(value, mac(keys[0].key, record, fp))
    ? { kind: 'sealed' }
    : { kind: 'broken', why: 'its record differs from the request and decision it was sealed with' };
}

/**
 * The record re-sealed under the key in use when its seal opens under a key given and is not already
 * the key in use's (the re-seal at start, payout.reseal.ts); undefined otherwise. A v2 seal keeps the
 * decision it covered; a legacy seal covered none, so the record gets `trailDecision` (what its
 * audit trail records), never a decision its row alone says.
 */
export function resealed(
  keys: SealKeys,
  record: Disbursement,
  trailDecision: SendDecision | undefined,
): Disbursement | undefined {
  const { request, seal } = record;
  if (!request || !seal) return undefined;
  const fp = fingerprint(request);
  if (!showsItsRequest(record, fp)) return undefined;
  const [version, keyId, value] = seal.split(':');
  if (value === undefined)
    return keys.some((k) => same(seal, legacyMac(k.key, record, fp)))
      ? sealed(keys[0], { ...record, decision: trailDecision }, fp)
      : undefined;
  const opens =
    version === V2 &&
    keyId !== keys[0].keyId &&
    keys.some((k) => k.keyId === keyId && same(value, mac(k.key, record, fp)));
  return opens ? sealed(keys[0], record, fp) : undefined;
}

/**
 * Whether `decision` lets the gateway send the payout on its own now: the requester's create within
 * the controls, or an approval by someone other than the requester; and its time has come.
 */
export function decisionAllows(
  record: Disbursement,
  decision: SendDecision | undefined,
  now: Date,
): string | undefined {
  if (!decision) return 'no recorded decision lets the gateway send it';
  if (decision.kind === 'APPROVED' && decision.byId === record.requesterId)
    return 'its approval was made by its own requester';
  if (decision.kind === 'WITHIN_LIMITS' && decision.byId !== record.requesterId)
    return 'its decision was made by someone other than its requester';
  const sendAt = record.request?.sendAt;
  if (sendAt !== undefined && Date.parse(sendAt) > now.getTime()) return `its time (${sendAt}) has not come`;
  return undefined;
}
