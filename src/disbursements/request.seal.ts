import { createHmac, timingSafeEqual } from 'node:crypto';
import { fingerprint } from './disbursement.fingerprint';
import { Disbursement, DisbursementRequest } from './disbursement.model';

/*
 * A payout's seal: the gateway's keyed value over who asked for what (merchant, referenceId and the
 * request's fingerprint), stored with the record when it is claimed. A payout decided earlier and sent
 * later (held then approved, scheduled) is sent only when its record still carries the request its
 * seal was made for: whoever can write to the database, the gateway's own role included, has no key
 * to seal another account (docs/money-safety.md).
 */

/** Domain separation: the seal key, derived from the audit chain key, serves nothing else. */
const SEAL_KEY_LABEL = 'payout-gateway request seal key v1';

/** The seal key of an audit chain key (one of AUDIT_SIGNING_KEY's). */
export function requestSealKey(chainKey: Buffer): Buffer {
  return createHmac('sha256', chainKey).update(SEAL_KEY_LABEL).digest();
}

/**
 * The seal keys of AUDIT_SIGNING_KEY's keys, in its order: the first seals new payouts; every one
 * still opens the seals it made, so a payout held or scheduled before a key rotation is sent after it.
 */
export type SealKeys = readonly [Buffer, ...Buffer[]];

export function requestSealKeys(chainKeys: readonly [{ chainKey: Buffer }, ...{ chainKey: Buffer }[]]): SealKeys {
  const [inUse, ...older] = chainKeys;
  return [requestSealKey(inUse.chainKey), ...older.map((k) => requestSealKey(k.chainKey))];
}

/** hex HMAC-SHA256 under the seal key over the merchant, the referenceId and the request's fingerprint. */
export function sealOf(
  key: Buffer,
  merchantId: string,
  request: DisbursementRequest,
  requestFingerprint = fingerprint(request),
): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([merchantId, request.referenceId, requestFingerprint]))
    .digest('hex');
}

/**
 * Whether the record is what its keyed request says: a seal made by this gateway, under any of its
 * seal keys, for its request, and the fields shown and sent (referenceId, amount, currency, account)
 * the request's own.
 */
export function sealHolds(keys: readonly Buffer[], record: Disbursement): boolean {
  const { request, seal } = record;
  if (!request || !seal) return false;
  const requestFingerprint = fingerprint(request);
  const shown =
    request.referenceId === record.referenceId &&
    request.channel === record.channel &&
    request.amount === record.amount &&
    request.currency === record.currency &&
    request.accountNumber === record.accountNumber &&
    record.fingerprint === requestFingerprint;
  const actual = Buffer.from(seal, 'hex');
  const madeBy = (key: Buffer) => {
    const expected = Buffer.from(sealOf(key, record.merchantId, request, requestFingerprint), 'hex');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };
  return shown && keys.some(madeBy);
}
